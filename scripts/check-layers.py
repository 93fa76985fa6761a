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

and when the sources break the folder rules (server/common includes no
header from another folder; server/worker and server/core include only
their own headers and the leaf library's; every file a build's core
includes is in server/core/SOURCES).

An upward use still waiting to be removed is listed in FILE
(scripts/layers-known.txt: "module -> module" a line); it is tolerated,
but a listed use that is gone fails too, so the list only shrinks.

The layers, bottom up (README, Architecture):
  1 common    the leaf library, server/common/*.c
  2 storage   db, db_* (all SQL), schema_sql
  3 engine    build, worker, confine, runs, genrun, phptrun, coverage, reduce
  4 services  triage, measure, profile, export, auth, svc
  5 http      http, api, api_*
  6 commands  main

Prints the module dependency list (each module, its layer, what it uses).
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LAYERS = ["", "common", "storage", "engine", "services", "http", "commands"]
ENGINE = {"build", "worker", "confine", "sanitize", "runs", "genrun", "phptrun", "coverage", "reduce"}
SERVICES = {"triage", "measure", "profile", "export", "auth", "svc"}

# Static functions whose names are ordinary words, not shared helpers.
STATIC_OK = {"usage", "json_decref", "json_incref"}  # and jansson's inline functions, emitted where not inlined


def layer_of(module, common):
    if module in common:
        return 1
    if module == "db" or module.startswith("db_") or module == "schema_sql":
        return 2
    if module in ENGINE:
        return 3
    if module in SERVICES:
        return 4
    if module in ("http", "api") or module.startswith("api_"):
        return 5
    if module == "main":
        return 6
    return None


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
    folders = {d: set(os.listdir(os.path.join(server, d)))
               for d in ("common", "daemon", "worker", "core") if os.path.isdir(os.path.join(server, d))}
    # Which folders' headers each folder may include.
    allowed = {"common": {"common"}, "daemon": {"daemon", "common"},
               "worker": {"worker", "common", "core"}, "core": {"core", "common"}}
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--objects", default=os.path.join(ROOT, "build", "obj"))
    ap.add_argument("--known", default=os.path.join(ROOT, "scripts", "layers-known.txt"))
    ap.add_argument("--common", default=os.path.join(ROOT, "server", "common"),
                    help="the leaf library's folder: its .c files are layer 1")
    ap.add_argument("--root", default=ROOT, help="checkout whose server/ sources are checked")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("files", nargs="*", help="the objects (default: every .o in --objects)")
    args = ap.parse_args()

    common = {f[:-2] for f in os.listdir(args.common) if f.endswith(".c")} if os.path.isdir(args.common) else set()
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
        layer = layer_of(m, common)
        if layer is None:
            errors.append(f"{m}: not in any layer (scripts/check-layers.py, layer_of)")
            continue
        modules[m] = (layer,) + read_symbols(f)

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
