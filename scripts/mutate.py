#!/usr/bin/env python3
"""Mutation sites of php-src's ext/json encoder (issue 20), as one-file
patches scripts/build-php.sh builds over the cached base tree.

    scripts/mutate.py [--source TARBALL|DIR] --list [--kind K,...] [--json]
    scripts/mutate.py [--source ...] --patch ID [-o FILE]
    scripts/mutate.py [--source ...] --sample N --seed S [--kind K,...] [--json]

The source (default: the pristine php8.2_8.2.32.orig.tar.xz of the build
cache, $PHPCMP_PHP_CACHE or ~/.cache/phpcmp/php, dist/) is read, never
written: a tarball, or a php-src tree (its top folder).  Files mutated:
ext/json/json_encoder.c (all of it) and ext/json/json.c (the encoding half
only: php_json_encode_string, php_json_encode_ex and json_encode(); the
decoder is not what phpcmp compares).

Operators, over the C text with comments, string literals and preprocessor
lines (#..., and their continuations) left out:

| kind     | what                                                               |
|----------|--------------------------------------------------------------------|
| rel      | < <= > >= == != : the boundary variant (< → <=) and the negation (< → >=) |
| arith    | binary + ↔ -, ++ ↔ --, += ↔ -=                                    |
| logic    | && ↔ ||                                                            |
| const    | an integer or character constant ±1 (0x500080c4 → 0x500080c5, 'a' → ('a' + 1)) |
| negate   | if (c) → if (!(c)), while (c) → while (!(c))                       |
| delete   | a one-line expression statement, break; or continue; replaced by ; |
| flag     | a PHP_JSON_* option flag → the next / previous one in the flag list; |
|          | a PHP_JSON_ERROR_* code → the next one; OUTPUT_ARRAY ↔ OUTPUT_OBJECT |
| loop     | a for/while condition's bound b (i < b) → b + 1, b - 1             |

A site's id is stable (the file, line, column and operation, nothing
else): e.g. `e361.17.rel-le` (json_encoder.c line 361 column 17, the
relational operator there → <=), `j216.9.negate`.  Ids use only letters,
digits, '.', '-' (a build name: mut-ID).  --sample draws without
replacement with Python's random.Random(seed) over the sorted ids: the same
source, N and seed give the same mutants.

A patch is a unified diff, `patch -p1` in the source's top folder, touching
that one .c file.
"""
import argparse, difflib, json, os, random, re, sys, tarfile

FILES = {"e": "ext/json/json_encoder.c", "j": "ext/json/json.c"}
# json.c: only these functions' bodies are mutated (the encoder's half).
JSON_C_FUNCS = ("php_json_encode_string", "php_json_encode_ex", "PHP_FUNCTION(json_encode)")
KINDS = ("rel", "arith", "logic", "const", "negate", "delete", "flag", "loop")

OPTION_FLAGS = ["HEX_TAG", "HEX_AMP", "HEX_APOS", "HEX_QUOT", "FORCE_OBJECT", "NUMERIC_CHECK",
                "UNESCAPED_SLASHES", "PRETTY_PRINT", "UNESCAPED_UNICODE", "PARTIAL_OUTPUT_ON_ERROR",
                "PRESERVE_ZERO_FRACTION", "UNESCAPED_LINE_TERMINATORS", "INVALID_UTF8_IGNORE",
                "INVALID_UTF8_SUBSTITUTE", "THROW_ON_ERROR"]
ERROR_CODES = ["NONE", "DEPTH", "STATE_MISMATCH", "CTRL_CHAR", "SYNTAX", "UTF8", "RECURSION",
               "INF_OR_NAN", "UNSUPPORTED_TYPE", "INVALID_PROPERTY_NAME", "UTF16", "NON_BACKED_ENUM"]
REL = {"<": [("<=", "le"), (">=", "ge")], "<=": [("<", "lt"), (">", "gt")],
       ">": [(">=", "ge"), ("<=", "le")], ">=": [(">", "gt"), ("<", "lt")],
       "==": [("!=", "ne")], "!=": [("==", "eq")]}
# Statements not worth deleting: block-forming macros (a compile failure)
# and no-ops of a release build.
NO_DELETE = re.compile(r"^(ZEND_HASH_FOREACH|ZEND_PARSE_PARAMETERS|Z_PARAM_|ZEND_FALLTHROUGH|ZEND_ASSERT)")
DECL_WORDS = {"int", "char", "unsigned", "signed", "long", "short", "double", "float", "size_t", "bool",
              "static", "const", "struct", "enum", "void", "zval", "zend_string", "zend_long", "zend_ulong",
              "zend_result", "HashTable", "smart_str", "uint32_t", "php_json_encoder", "zend_object",
              "zend_class_entry", "zend_property_info"}
STMT_KEYWORDS = {"return", "if", "else", "for", "while", "do", "switch", "case", "default", "goto",
                 "typedef"}
PUNCT = sorted(["<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
                "*=", "/=", "%=", "&=", "|=", "^=", "##", "..."], key=len, reverse=True)


def default_source():
    cache = os.environ.get("PHPCMP_PHP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "phpcmp/php")
    return os.path.join(cache, "dist/php8.2_8.2.32.orig.tar.xz")


def read_sources(source):
    out = {}
    if os.path.isdir(source):
        for tag, rel in FILES.items():
            with open(os.path.join(source, rel), "rb") as f:
                out[tag] = f.read().decode("latin-1")
        return out
    with tarfile.open(source) as tf:
        for m in tf:
            parts = m.name.split("/", 1)
            if len(parts) == 2:
                for tag, rel in FILES.items():
                    if parts[1] == rel:
                        out[tag] = tf.extractfile(m).read().decode("latin-1")
    missing = [FILES[t] for t in FILES if t not in out]
    if missing:
        sys.exit(f"mutate: {source} has no {', '.join(missing)}")
    return out


def mask(text):
    """The text with comments, string and character literals and
    preprocessor lines blanked (same length, newlines kept), and the
    character literals found: [(start, end)]."""
    out = list(text)
    chars = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line and its continuations
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
            if c == "'":
                chars.append((i, j))
        else:
            if c == "\n":
                line_start = True
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out), chars


def tokens(masked):
    """(start, end, text) of each token of the masked text."""
    toks = []
    i, n = 0, len(masked)
    while i < n:
        c = masked[i]
        if c.isspace():
            i += 1
            continue
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9A-Fa-f]+[uUlL]*|[0-9]+[uUlL]*").match(masked, i)
        if m:
            toks.append((i, m.end(), m.group()))
            i = m.end()
            continue
        for p in PUNCT:
            if masked.startswith(p, i):
                toks.append((i, i + len(p), p))
                i += len(p)
                break
        else:
            toks.append((i, i + 1, c))
            i += 1
    return toks


def match_paren(toks, k):
    """Index of the token closing the '(' at toks[k]."""
    depth = 0
    for j in range(k, len(toks)):
        if toks[j][2] == "(":
            depth += 1
        elif toks[j][2] == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def allowed_ranges(tag, text, masked):
    """Character ranges that may be mutated."""
    if tag == "e":
        return [(0, len(text))]
    ranges = []
    for name in JSON_C_FUNCS:
        m = re.search(r"^[^\n]*" + re.escape(name) + r"\s*(\([^)]*\))?\s*(/\*[^\n]*\*/)?\s*\n\{", text, re.M)
        if not m:
            sys.exit(f"mutate: json.c has no function {name}")
        start = m.end() - 1
        depth = 0
        for k in range(start, len(masked)):
            if masked[k] == "{":
                depth += 1
            elif masked[k] == "}":
                depth -= 1
                if depth == 0:
                    ranges.append((start, k + 1))
                    break
    return ranges


def const_text(tok, delta):
    m = re.match(r"(0[xX])([0-9A-Fa-f]+)([uUlL]*)$", tok)
    if m:
        v = int(m.group(2), 16) + delta
        if v < 0:
            return None
        digits = format(v, "x" if m.group(2).lower() == m.group(2) else "X")
        return m.group(1) + digits.zfill(len(m.group(2))) + m.group(3)
    m = re.match(r"([0-9]+)([uUlL]*)$", tok)
    if m:
        v = int(m.group(1)) + delta
        return None if v < 0 else str(v) + m.group(2)
    return None


def sites_of(tag, text):
    """Every mutation site of one file: dicts with id, kind, file, line,
    col, start, end, before, after."""
    masked, chars = mask(text)
    ranges = allowed_ranges(tag, text, masked)
    inside = lambda pos: any(a <= pos < b for a, b in ranges)
    line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def where(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - line_starts[lo] + 1

    out = []

    def add(kind, op, start, end, after):
        if not inside(start):
            return
        line, col = where(start)
        out.append({"id": f"{tag}{line}.{col}.{op}", "kind": kind, "file": FILES[tag], "line": line, "col": col,
                    "start": start, "end": end, "before": text[start:end], "after": after})

    toks = tokens(masked)
    # Conditions of for/while: their relational operators are "loop" sites too.
    loop_conds = []
    for k, (s, e, t) in enumerate(toks):
        if t in ("if", "while", "for") and k + 1 < len(toks) and toks[k + 1][2] == "(":
            close = match_paren(toks, k + 1)
            if close is None:
                continue
            if t == "for":
                semis = [j for j in range(k + 2, close) if toks[j][2] == ";"]
                if len(semis) == 2:
                    loop_conds.append((semis[0] + 1, semis[1]))
                continue
            if t == "while":
                loop_conds.append((k + 2, close))
            a, b = toks[k + 1][0], toks[close][1]
            add("negate", "negate", a, b, "(!" + text[a:b] + ")")
    for k, (s, e, t) in enumerate(toks):
        prev = toks[k - 1][2] if k else ""
        binary = bool(re.match(r"[A-Za-z0-9_)\]]", prev))
        if t in REL:
            for after, name in REL[t]:
                add("rel", "rel-" + name, s, e, after)
        elif t in ("+", "-") and binary:
            add("arith", "arith-" + ("minus" if t == "+" else "plus"), s, e, "-" if t == "+" else "+")
        elif t in ("++", "--"):
            add("arith", "arith-" + ("dec" if t == "++" else "inc"), s, e, "--" if t == "++" else "++")
        elif t in ("+=", "-="):
            add("arith", "arith-" + ("sub" if t == "+=" else "add"), s, e, "-=" if t == "+=" else "+=")
        elif t in ("&&", "||"):
            add("logic", "logic-" + ("or" if t == "&&" else "and"), s, e, "||" if t == "&&" else "&&")
        elif re.match(r"[0-9]", t):
            # Not array sizes of declarations ("char num[ZEND_...]" has none; "charmap[8] =" does)
            if prev == "[" and k + 2 < len(toks) and toks[k + 1][2] == "]" and toks[k + 2][2] == "=":
                continue
            for delta, name in ((1, "const-p1"), (-1, "const-m1")):
                after = const_text(t, delta)
                if after is not None:
                    add("const", name, s, e, after)
        elif t.startswith("PHP_JSON_"):
            name = t[len("PHP_JSON_"):]
            if name in OPTION_FLAGS:
                i = OPTION_FLAGS.index(name)
                for d, op in ((1, "flag-next"), (-1, "flag-prev")):
                    add("flag", op, s, e, "PHP_JSON_" + OPTION_FLAGS[(i + d) % len(OPTION_FLAGS)])
            elif name.startswith("ERROR_") and name[6:] in ERROR_CODES and name != "ERROR_NONE":
                i = ERROR_CODES.index(name[6:])
                add("flag", "flag-next", s, e, "PHP_JSON_ERROR_" + ERROR_CODES[(i + 1) % len(ERROR_CODES)])
            elif name in ("OUTPUT_ARRAY", "OUTPUT_OBJECT"):
                add("flag", "flag-swap", s, e,
                    "PHP_JSON_OUTPUT_" + ("OBJECT" if name == "OUTPUT_ARRAY" else "ARRAY"))
    for a, b in chars:
        for delta, name in ((1, "const-p1"), (-1, "const-m1")):
            add("const", name, a, b, f"({text[a:b]} {'+' if delta > 0 else '-'} 1)")
    # Loop bounds: the right operand of a condition's relational operator.
    for a, b in loop_conds:
        for j in range(a, b):
            if toks[j][2] in ("<", "<=", ">", ">=") and j + 1 < b:
                s, e = toks[j + 1][0], toks[b - 1][1]
                for d, op in (("+ 1", "loop-p1"), ("- 1", "loop-m1")):
                    add("loop", op, s, e, f"({text[s:e]}) {d}")
    # Deleted statements: a line that is one whole expression statement.
    lines = masked.split("\n")
    for ln, code in enumerate(lines, 1):
        st = code.strip()
        if not st.endswith(";") or not st[:-1] or ";" in st[:-1]:
            continue
        start = line_starts[ln - 1] + (len(code) - len(code.lstrip()))
        end = start + len(st)
        # The statement must start on this line: the code before ends a statement or a block.
        before = masked[:start].rstrip()
        if before and before[-1] not in ";{}:)" and not before.endswith("else"):
            continue
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", st)
        if not re.match(r"[A-Za-z_(*+-]", st):
            continue  # "} WHILE_END();" and the like: not a statement of its own
        if st in ("break;", "continue;"):
            op = "delete"
        elif not words or words[0] in STMT_KEYWORDS or words[0] in DECL_WORDS or NO_DELETE.match(st):
            continue
        elif st.count("(") != st.count(")"):
            continue
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*\**\s*[A-Za-z_][A-Za-z0-9_]*\s*(=|;|,|\[)", st):
            continue  # a declaration: "type name = ..." or "type *name;"
        else:
            op = "delete"
        add("delete", op, start, end, ";")
    return out


def all_sites(source):
    srcs = read_sources(source)
    sites = []
    for tag in FILES:
        sites += sites_of(tag, srcs[tag])
    ids = [s["id"] for s in sites]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"mutate: ids not unique: {sorted(dup)[:5]}")
    return srcs, sorted(sites, key=lambda s: (s["file"], s["start"], s["id"]))


def describe(s):
    b = " ".join(s["before"].split())
    a = " ".join(s["after"].split())
    if len(b) > 60:
        b, a = b[:57] + "...", a[:57] + "..."
    return f"{s['id']}  {s['kind']:<6} {os.path.basename(s['file'])}:{s['line']}:{s['col']}  {b} → {a}"


def patch_of(srcs, s):
    tag = s["id"][0]
    text = srcs[tag]
    new = text[:s["start"]] + s["after"] + text[s["end"]:]
    rel = s["file"]
    diff = difflib.unified_diff(text.splitlines(True), new.splitlines(True), "a/" + rel, "b/" + rel, n=3)
    return "".join(diff)


def public(s):
    return {k: s[k] for k in ("id", "kind", "file", "line", "col", "before", "after")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default=None, help="php-src tarball or tree (default: the build cache's 8.2.32)")
    ap.add_argument("--list", action="store_true", help="every site: id, kind, file:line:col, before → after")
    ap.add_argument("--patch", metavar="ID", help="print (or -o) the patch of one site")
    ap.add_argument("-o", "--output", help="with --patch: write it to this file")
    ap.add_argument("--sample", type=int, metavar="N", help="N site ids drawn at random (--seed)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", help="only these kinds (comma-separated: " + ",".join(KINDS) + ")")
    ap.add_argument("--json", action="store_true", help="--list/--sample as JSON")
    args = ap.parse_args()
    source = args.source or default_source()
    srcs, sites = all_sites(source)
    if args.kind:
        kinds = args.kind.split(",")
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            sys.exit(f"mutate: unknown kind {bad[0]} (one of {', '.join(KINDS)})")
        sites = [s for s in sites if s["kind"] in kinds]
    if args.patch:
        by_id = {s["id"]: s for s in sites}
        if args.patch not in by_id:
            sys.exit(f"mutate: no site {args.patch} (scripts/mutate.py --list)")
        p = patch_of(srcs, by_id[args.patch])
        if args.output:
            with open(args.output, "w", encoding="latin-1") as f:
                f.write(p)
        else:
            sys.stdout.write(p)
        return
    if args.sample is not None:
        ids = sorted(s["id"] for s in sites)
        rng = random.Random(args.seed)
        pick = set(rng.sample(ids, min(args.sample, len(ids))))
        sites = [s for s in sites if s["id"] in pick]
    elif not args.list:
        ap.error("one of --list, --patch ID, --sample N")
    if args.json:
        json.dump([public(s) for s in sites], sys.stdout, indent=1)
        print()
    else:
        for s in sites:
            print(describe(s))
        if args.list:
            counts = {}
            for s in sites:
                counts[s["kind"]] = counts.get(s["kind"], 0) + 1
            print(f"# {len(sites)} sites: " + ", ".join(f"{k} {counts[k]}" for k in KINDS if k in counts),
                  file=sys.stderr)


if __name__ == "__main__":
    main()
