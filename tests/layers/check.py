#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The include graph of the tree, checked against the layering rules.

Layers point down: core <- pcapgen <- cli, and dissector uses core only.
core/ is sans-IO and portable: besides its own headers it may include only
libc headers that do no I/O of their own and its CRC library. pcapgen/ may
include the C library and libpcap, nothing else of the system. Inside cli/,
a module is a .c file with its .h; no two modules may need each other,
directly or round a longer circle.

Usage: check.py [ROOT] [--graph]
  ROOT     the tree to check (default: the one this script is in)
  --graph  also print the module graph, one 'a -> b' line per edge
Exit status 0 when every rule holds, 1 with one line per broken rule (a
layer without a single source file is one: nothing checked is no pass).
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# Folder -> the folders whose headers it may include (its own always).
ALLOWED = {
    "core": {"core"},
    "pcapgen": {"core", "pcapgen"},
    "cli": {"core", "pcapgen", "cli"},
    "dissector": {"core", "dissector"},
}
# Where a quoted include is looked for after the including file's own
# folder, as the Makefile's -I options do.
SEARCH = ["core/include", "core/src", "pcapgen", "cli", "dissector"]
# Headers the build makes from files of the tree, and the folder whose layer they belong to.
BUILT = {"report_assets.h": "cli"}

# System headers core/ may use: libc without sockets, threads or clocks, and the CRC libraries.
CORE_SYSTEM = {
    "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "stdarg.h",
    "limits.h", "ctype.h", "errno.h", "assert.h", "inttypes.h", "arpa/inet.h",
    "isa-l/crc.h", "zlib.h",
}
# System headers pcapgen/ may use: the C library (C11 7.1.2, without <threads.h>) and libpcap.
C_LIBRARY = {
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "iso646.h",
    "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdatomic.h",
    "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "stdnoreturn.h", "string.h", "tgmath.h",
    "time.h", "uchar.h", "wchar.h", "wctype.h",
}
PCAPGEN_SYSTEM = C_LIBRARY | {"pcap/pcap.h"}


def layer_of(rel):
    top = rel.split("/", 1)[0]
    return top if top in ALLOWED else None


def sources(root):
    for top in ALLOWED:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, rel, name):
    here = os.path.dirname(rel)
    for d in [here] + SEARCH:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def module(rel):
    """cli/peer.c and cli/peer.h are one module, cli/peer."""
    return os.path.splitext(rel)[0]


def find_cycle(edges):
    """One circle in a directed graph as a list of nodes, or None."""
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.abspath(root)
    problems = []
    edges = {}
    seen = {layer: 0 for layer in ALLOWED}
    for rel in sources(root):
        layer = layer_of(rel)
        seen[layer] += 1
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, name = m.groups()
                where = f"{rel}:{lineno}"
                if kind == "<":
                    if layer == "core" and name not in CORE_SYSTEM:
                        problems.append(f"{where}: core/ includes <{name}>, which is not libc without I/O or the CRC library")
                    if layer == "pcapgen" and name not in PCAPGEN_SYSTEM:
                        problems.append(f"{where}: pcapgen/ includes <{name}>, which is not the C library or libpcap")
                    continue
                target = resolve(root, rel, name)
                if target is None and BUILT.get(name) == layer:
                    continue
                if target is None:
                    problems.append(f'{where}: "{name}" is not a file of the tree')
                    continue
                tl = layer_of(target)
                if tl not in ALLOWED[layer]:
                    problems.append(f"{where}: {layer}/ includes {target}: {layer}/ may use only "
                                    + ", ".join(sorted(ALLOWED[layer])))
                a, b = module(rel), module(target)
                if a != b:
                    edges.setdefault(a, set()).add(b)
    for layer in sorted(seen):
        if not seen[layer]:
            problems.append(f"{root}/{layer}/ holds no .c or .h file: nothing of that layer was checked")
    cli_edges = {a: {b for b in bs if b.startswith("cli/")} for a, bs in edges.items() if a.startswith("cli/")}
    cycle = find_cycle(cli_edges)
    if cycle:
        problems.append("cli/ modules in a circle: " + " -> ".join(cycle))
    if "--graph" in argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"{a} -> {b}")
    for p in problems:
        print("FAIL " + p)
    if not problems:
        print(f"layers: {sum(len(v) for v in edges.values())} include edges between modules; core at the bottom, "
              "pcapgen above it, cli on top, dissector on core; no circle in cli/")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
