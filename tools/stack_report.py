#!/usr/bin/env python3
"""Worst-case stack depth of every public entry point, from GCC's call graphs.

The library is compiled with -fcallgraph-info=su: each object gets a .ci file
(VCG) with its functions' own frame sizes and their calls. This joins them and
walks the graph from each ea_* function: depth = own frame + deepest callee.
Calls that leave the library (memcpy, sin, pow...) are listed, counted as 0:
add the C library's own figures for those. Dynamic frames or recursion (none
today) are reported as such rather than guessed.

Usage: stack_report.py <build dir>   prints "entry point  bytes" lines, deepest first.
"""
import glob
import os
import re
import sys

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
FRAME = re.compile(r'\\n(\d+) bytes \(([^)]*)\)')


def symbol(title):
    """Definitions of external functions are titled file:symbol, calls symbol."""
    return title.rsplit(":", 1)[-1]


def load(build_dir):
    frames, kinds, calls = {}, {}, {}
    for path in glob.glob(os.path.join(build_dir, "src", "**", "*.ci"), recursive=True):
        with open(path) as ci:
            text = ci.read()
        local = {}
        for title, label in NODE.findall(text):
            match = FRAME.search(label)
            if match:  # defined here (ellipse nodes are only referenced)
                name = title if "_GLOBAL__N_" in title else symbol(title)
                local[title] = name
                frames[name] = int(match.group(1))
                kinds[name] = match.group(2)
        for source, target in EDGE.findall(text):
            caller = local.get(source, symbol(source))
            callee = local.get(target, symbol(target))
            calls.setdefault(caller, set()).add(callee)
    return frames, kinds, calls


def depth(name, frames, calls, outside, stack=()):
    if name not in frames:
        outside.add(name)
        return 0
    if name in stack:
        raise ValueError("recursion through " + name)
    deepest = max((depth(c, frames, calls, outside, stack + (name,)) for c in calls.get(name, ())),
                  default=0)
    return frames[name] + deepest


def main():
    frames, kinds, calls = load(sys.argv[1])
    outside = set()
    rows = []
    for name in frames:
        if name.startswith("ea_"):
            rows.append((depth(name, frames, calls, outside), name))
    dynamic = sorted(n for n, k in kinds.items() if k != "static")
    for bytes_used, name in sorted(rows, reverse=True):
        print("%-32s %6d" % (name, bytes_used))
    print("calls leaving the library (counted as 0): " + " ".join(sorted(outside)))
    if dynamic:
        print("functions with dynamic frames: " + " ".join(dynamic))


if __name__ == "__main__":
    main()
