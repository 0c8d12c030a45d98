#!/usr/bin/env python3
"""The one entry point of bench/: `bench/run.py NAME [ARGS...]` runs target
NAME with ARGS (`bench/run.py NAME --help` shows them); `bench/run.py
--list` lists every target with its first docstring line.

A target is a module of checks/ or perf/ with a `main(argv)`; it runs in
this process (so `compute-sanitizer python3 bench/run.py NAME` sees its
kernels) with bench/ and Quire's Python package ($QUIRE_PYTHONPATH, else
python/; set and empty: the installed package) on sys.path. Targets parse
their arguments before importing torch, so --help works on a machine without
it.
"""

import ast
import os
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
GROUPS = ("checks", "perf")


def targets():
    """{name: (group, path)} of every module of checks/ and perf/."""
    found = {}
    for group in GROUPS:
        folder = os.path.join(BENCH, group)
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".py") and not entry.startswith("_"):
                found[entry[:-3]] = (group, os.path.join(folder, entry))
    return found


def summary(path):
    """The first line of a module's docstring, read without importing it."""
    with open(path, encoding="utf-8") as f:
        doc = ast.get_docstring(ast.parse(f.read(), path)) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def main(argv):
    found = targets()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        print("\ntargets (bench/run.py --list):", " ".join(found))
        return 0 if argv else 2
    if argv[0] == "--list":
        for group in GROUPS:
            for name, (g, path) in found.items():
                if g == group:
                    print(f"{group + '/' + name:26s} {summary(path)}")
        return 0
    name, args = argv[0], argv[1:]
    if name not in found:
        print(f"bench/run.py: no target {name!r}; bench/run.py --list shows them",
              file=sys.stderr)
        return 2
    # QUIRE_PYTHONPATH set and empty: the installed package (the wheel).
    quire_path = os.environ.get("QUIRE_PYTHONPATH",
                                os.path.join(os.path.dirname(BENCH), "python"))
    sys.path[:0] = [BENCH] + ([quire_path] if quire_path else [])
    sys.argv = [f"bench/run.py {name}", *args]
    import importlib
    module = importlib.import_module(f"{found[name][0]}.{name}")
    return module.main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
