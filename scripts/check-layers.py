#!/usr/bin/env python3
"""The layer check: phpcmp's modules use only what is below them.

    scripts/check-layers.py [--objects DIR] [--known FILE] [--quiet] [OBJECT.o ...]

Reads each daemon object's (the OBJECT.o given, else every one in DIR) defined and undefined symbols with `nm`
(DIR: build/obj), maps every undefined symbol to the module that defines
it, and fails (exit 1) when

  - a module uses a symbol of a module in a higher layer,
  - modules depend on each other in a cycle (within a layer too),
  - a global symbol is defined by two modules, or a static helper of the
    same name is defined in two modules (a copy of a shared helper;
    names in STATIC_OK are ordinary names, not helpers),

and when the sources break the folder rules (a daemon folder includes
headers only of its own layer and the layers below; server/common
includes no header from another folder; server/worker and server/core
include only their own headers and the leaf library's; every file a
build's core includes is in server/core/SOURCES; in server/core a header
declares only its own file's functions, so what a core file includes is
what it uses, and those uses form no circle).

An upward use still waiting to be removed is listed in FILE
(scripts/layers-known.txt: "module -> module" a line); it is tolerated,
but a listed use that is gone fails too, so the list only shrinks.

A module is a source file (NAME.c, or NAME.S) and its object NAME.o; its
layer is its folder, bottom up (FOLDERS; README, Architecture):
  1 common    server/common/          what the daemon, the worker and the core share
  2 model     server/daemon/model/    the daemon's leaf: bytes, results, cases, buckets, stored JSON
  3 store     server/daemon/store/    all SQL
  4 engine    server/daemon/engine/   builds, workers, their sandbox, runs
  5 service   server/daemon/service/  cases, auth, triage, measure, profile, export
  6 http      server/daemon/http/     libmicrohttpd, the router, the resources
  7 cli       server/daemon/cli/      the commands that are a daemon's clients: submit, review
  8 daemon    server/daemon/          main.c: the commands; config.c: serve's settings

Prints the module dependency list (each module, its layer, what it uses).
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The layers, bottom up: a file's layer is its folder.
FOLDERS = [
    ("common", "server/common"),
    ("model", "server/daemon/model"),
    ("store", "server/daemon/store"),
    ("engine", "server/daemon/engine"),
    ("service", "server/daemon/service"),
    ("http", "server/daemon/http"),
    ("cli", "server/daemon/cli"),
    ("daemon", "server/daemon"),
]
LAYERS = [""] + [name for name, _ in FOLDERS]

# Static functions whose names are ordinary words, not shared helpers.
STATIC_OK = {"usage", "json_decref", "json_incref"}  # and jansson's inline functions, emitted where not inlined


def layer_folders(root):
    """Each module (a NAME.c or NAME.S of a layer's folder) and the layers whose folder holds it."""
    where = {}
    for layer, (_, folder) in enumerate(FOLDERS, 1):
        path = os.path.join(root, folder)
        for f in sorted(os.listdir(path)) if os.path.isdir(path) else ():
            if f.endswith((".c", ".S")) and os.path.isfile(os.path.join(path, f)):
                where.setdefault(f[:-2], []).append(layer)
    return where


def read_symbols(path):
    out = subprocess.run(["nm", path], check=True, capture_output=True, text=True).stdout
    defined, undefined, statics = set(), set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3:
            kind, name = parts[1], parts[2]
            if name.startswith(".") or "." in name:
                continue  # local labels, clones (foo.part.0, foo.cold)
            if name.startswith(("_sub_I_", "_sub_D_", "__asan", "__ubsan", "__sanitizer")):
                continue  # made by the compiler under SANITIZE (module constructors), not ours
            if kind in "TDBRGSVW" and kind != "U":
                defined.add(name)
            elif kind == "t":
                statics.add(name)
    return defined, undefined, statics


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_sources(root, errors):
    server = os.path.join(root, "server")
    if not os.path.isdir(server):
        return
    names = ["common", "worker", "core"] + [folder[len("server/"):] for _, folder in FOLDERS[1:]]
    folders = {d: {f for f in os.listdir(os.path.join(server, d)) if os.path.isfile(os.path.join(server, d, f))}
               for d in names if os.path.isdir(os.path.join(server, d))}
    # Which folders' headers each folder may include: a daemon folder its
    # own layer's and those below.
    allowed = {"common": {"common"}, "worker": {"worker", "common", "core"}, "core": {"core", "common"}}
    for i, (_, folder) in enumerate(FOLDERS[1:], 1):
        allowed[folder[len("server/"):]] = {f[len("server/"):] for _, f in FOLDERS[:i + 1]}
    for d, files in folders.items():
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(server, d, f), encoding="utf-8", errors="replace").read()
            for inc in INCLUDE.findall(text):
                home = [h for h in folders if inc in folders[h]]
                if not home:
                    continue
                if not any(h in allowed[d] for h in home):
                    errors.append(f"server/{d}/{f} includes \"{inc}\" of server/{home[0]}/ "
                                  f"(server/{d} may include only {', '.join(sorted(allowed[d]))})")
                if d == "worker" and "core" in home and inc != "core.h":
                    errors.append(f"server/worker/{f} includes \"{inc}\": the loader knows the core "
                                  f"only through core.h")
    sources = os.path.join(server, "core", "SOURCES")
    if os.path.exists(sources):
        listed = [l.strip() for l in open(sources) if l.strip() and not l.strip().startswith("#")]
        todo, seen = list(listed), set(listed)
        for rel in listed:
            if not os.path.exists(os.path.join(server, rel)):
                errors.append(f"server/core/SOURCES lists {rel}, which does not exist")
        while todo:
            rel = todo.pop()
            path = os.path.join(server, rel)
            if not os.path.exists(path):
                continue
            for inc in INCLUDE.findall(open(path, encoding="utf-8", errors="replace").read()):
                for h in ("core", "common"):
                    if inc in folders.get(h, ()):
                        need = [f"{h}/{inc}"]
                        c = inc[:-2] + ".c"
                        if h == "common" and c in folders["common"]:
                            need.append(f"common/{c}")
                        for n in need:
                            if n not in seen:
                                errors.append(f"server/{rel} includes \"{inc}\" but server/core/SOURCES "
                                              f"does not list {n}")
                                seen.add(n)
        for f in sorted(folders.get("core", ())):
            if f.endswith(".c") and f"core/{f}" not in seen:
                errors.append(f"server/core/{f} is not in server/core/SOURCES")
    check_core_floors(server, folders.get("core", set()), errors)


# A function declared or defined at the start of a line (its return type
# first): NAME( ... ); in a header, NAME( ... ) { in a source file.
DECLARED = re.compile(r"^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*;", re.M)
DEFINED = re.compile(r"^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def check_core_floors(server, files, errors):
    """server/core on floors: X.h declares only X.c's functions; X.c including Y.h uses Y; no circle."""
    def text(f):
        return COMMENT.sub(" ", open(os.path.join(server, "core", f), encoding="utf-8", errors="replace").read())
    home = {}
    for f in sorted(files):
        if f.endswith(".c"):
            for name in DEFINED.findall(text(f)):
                home.setdefault(name, f)
    uses = {}
    for f in sorted(files):
        if f.endswith(".h"):
            for name in DECLARED.findall(text(f)):
                at = home.get(name)
                if at is not None and at != f[:-2] + ".c":
                    errors.append(f"server/core/{f} declares {name}, a function of server/core/{at}: "
                                  f"a header declares only its own file's functions")
        elif f.endswith(".c"):
            uses[f[:-2]] = {inc[:-2] for inc in INCLUDE.findall(text(f))
                            if inc.endswith(".h") and inc != f[:-2] + ".h" and inc[:-2] + ".c" in files}
    for comp in cycles(uses):
        edges = [f"{m}.c -> {d}.h" for m in comp for d in sorted(uses[m]) if d in comp]
        errors.append(f"a circle in server/core between {', '.join(c + '.c' for c in comp)}: {'; '.join(edges)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objects", default=os.path.join(ROOT, "build", "obj"))
    ap.add_argument("--known", default=os.path.join(ROOT, "scripts", "layers-known.txt"))
    ap.add_argument("--root", default=ROOT,
                    help="checkout whose server/ sources are checked and place each module in its layer")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("files", nargs="*", help="the objects (default: every .o in --objects)")
    args = ap.parse_args()

    where = layer_folders(args.root)
    if args.files:
        objs = sorted(os.path.abspath(f) for f in args.files)
    else:
        objs = sorted(os.path.join(args.objects, f) for f in os.listdir(args.objects) if f.endswith(".o"))
    if not objs:
        print(f"check-layers: no objects in {args.objects} (make all first)", file=sys.stderr)
        return 2
    errors = []
    modules = {}
    for f in objs:
        m = os.path.basename(f)[:-2]
        layers = where.get(m, [])
        if len(layers) != 1:
            errors.append(f"{m}: not in any layer (no {m}.c in a layer's folder: scripts/check-layers.py, FOLDERS)"
                          if not layers else
                          f"{m}: in {len(layers)} layers' folders ({', '.join(FOLDERS[l - 1][1] for l in layers)}): "
                          f"one module, one folder")
            continue
        modules[m] = (layers[0],) + read_symbols(f)

    owner, statics = {}, {}
    for m, (_, defined, _, st) in sorted(modules.items()):
        for s in defined:
            if s in owner:
                errors.append(f"{s} is defined twice: in {owner[s]} and in {m}")
            else:
                owner[s] = m
        for s in st:
            statics.setdefault(s, []).append(m)
    for s, ms in sorted(statics.items()):
        if len(ms) > 1 and s not in STATIC_OK:
            errors.append(f"static {s} is defined in {len(ms)} modules ({', '.join(ms)}): "
                          f"one shared helper, not copies")

    graph, uses = {}, {}
    for m, (_, _, undefined, _) in modules.items():
        graph[m] = set()
        for s in undefined:
            d = owner.get(s)
            if d is not None and d != m:
                graph[m].add(d)
                uses.setdefault((m, d), set()).add(s)

    known = set()
    if args.known and os.path.exists(args.known):
        for line in open(args.known):
            line = line.split("#", 1)[0].strip()
            if line:
                a, _, b = line.partition("->")
                known.add((a.strip(), b.strip()))

    tolerated = set()
    for (m, d), syms in sorted(uses.items()):
        lm, ld = modules[m][0], modules[d][0]
        if ld > lm:
            if (m, d) in known:
                tolerated.add((m, d))
            else:
                errors.append(f"{m} ({LAYERS[lm]}, layer {lm}) uses {d} ({LAYERS[ld]}, layer {ld}), "
                              f"a higher layer: {', '.join(sorted(syms)[:6])}")
    for (m, d) in sorted(known):
        if (m, d) in known and (m, d) not in uses and m in modules and d in modules:
            errors.append(f"{m} -> {d} is listed in {os.path.relpath(args.known, ROOT)} but no longer "
                          f"used: remove the line")
        elif (m, d) in uses and (m, d) in known and (m, d) not in tolerated:
            errors.append(f"{m} -> {d} is listed in {os.path.relpath(args.known, ROOT)} but is not "
                          f"an upward use: remove the line")

    # Cycles, with the tolerated upward uses left out.
    acyclic = {m: {d for d in ds if (m, d) not in tolerated} for m, ds in graph.items()}
    for comp in cycles(acyclic):
        edges = [f"{m} -> {d}" for m in comp for d in sorted(acyclic[m]) if d in comp]
        errors.append(f"a cycle between {', '.join(comp)}: {'; '.join(edges)}")

    check_sources(args.root, errors)

    if not args.quiet:
        print("module dependencies (layer: module -> the modules it uses):")
        for m in sorted(modules, key=lambda k: (modules[k][0], k)):
            deps = sorted(graph[m], key=lambda k: (modules[k][0], k))
            marks = [d + ("!" if (m, d) in tolerated else "") for d in deps]
            print(f"  {modules[m][0]} {m:<10} -> {' '.join(marks) if marks else '-'}")
        if tolerated:
            print(f"  (! an upward use listed in {os.path.relpath(args.known, ROOT)}, still to be removed)")
    for e in errors:
        print(f"check-layers: {e}", file=sys.stderr)
    if errors:
        print(f"check-layers: {len(errors)} problem{'s' if len(errors) != 1 else ''}", file=sys.stderr)
        return 1
    print(f"check-layers: {len(modules)} modules in {len(set(v[0] for v in modules.values()))} layers, "
          f"no upward use{' but ' + str(len(tolerated)) + ' listed' if tolerated else ''}, no cycle, "
          f"no copy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
