#!/usr/bin/env python3
"""Runs a tool on every malformed input and checks it fails cleanly.

Each input must make the tool exit with status 1 (not a signal, not success)
and print an `error:` diagnostic that names the input file and a line:column,
and nothing that looks like a crash (LLVM's stack dump banner).

usage: check_malformed.py INPUT_DIR TOOL [TOOL_ARGS...]
"""
import os
import re
import subprocess
import sys


def main():
    input_dir, tool = sys.argv[1], sys.argv[2:]
    failures = []
    names = sorted(n for n in os.listdir(input_dir) if n.endswith(".mlir"))
    for name in names:
        path = os.path.join(input_dir, name)
        proc = subprocess.run(tool + [path], capture_output=True, timeout=60)
        err = proc.stderr.decode("utf-8", "replace")
        located = re.search(re.escape(name) + r":\d+:\d+: error:", err)
        crashed = "Stack dump" in err or "PLEASE submit" in err
        if proc.returncode != 1 or not located or crashed:
            failures.append(f"{name}: exit {proc.returncode}\n{err[-2000:]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(names) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
