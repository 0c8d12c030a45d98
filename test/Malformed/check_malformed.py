#!/usr/bin/env python3
"""Runs a tool on every malformed input and checks it fails cleanly.

Each input must make the tool exit with status 1 (not a signal, not success)
and print an `error:` diagnostic that names the input file and a line:column,
and nothing that looks like a crash (LLVM's stack dump banner, a sanitizer
report).

usage: check_malformed.py [--accepted-by TOOL] [--expect REGEX]
                          INPUT_DIR TOOL [TOOL_ARGS...]

  --accepted-by TOOL  each input must also be *accepted* (exit 0) by TOOL:
                      for inputs that are valid IR but not compilable.
  --expect REGEX      the located error must match REGEX after `error: `.
"""
import os
import re
import subprocess
import sys

CRASH_MARKS = ("Stack dump", "PLEASE submit", "LLVM ERROR", "Assertion",
               "UNREACHABLE", "AddressSanitizer", "runtime error:",
               "LeakSanitizer")


def main():
    args = sys.argv[1:]
    accepted_by, expect = None, None
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--accepted-by":
            accepted_by = args.pop(0)
        elif flag == "--expect":
            expect = args.pop(0)
        else:
            sys.exit(f"check_malformed.py: unknown flag {flag}")
    input_dir, tool = args[0], args[1:]
    failures = []
    names = sorted(n for n in os.listdir(input_dir) if n.endswith(".mlir"))
    for name in names:
        path = os.path.join(input_dir, name)
        try:
            proc = subprocess.run(tool + [path], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append(f"{name}: timed out after 60 s")
            continue
        err = proc.stderr.decode("utf-8", "replace")
        pattern = re.escape(name) + r":\d+:\d+: error: "
        if expect:
            pattern += r".*(" + expect + ")"
        located = re.search(pattern, err)
        crashed = any(mark in err for mark in CRASH_MARKS)
        if proc.returncode != 1 or not located or crashed:
            failures.append(f"{name}: exit {proc.returncode}\n{err[-2000:]}")
            continue
        if accepted_by:
            ok = subprocess.run([accepted_by, path], capture_output=True,
                                timeout=60)
            if ok.returncode != 0:
                failures.append(f"{name}: not accepted by {accepted_by} "
                                f"(exit {ok.returncode})\n"
                                f"{ok.stderr.decode('utf-8', 'replace')[-2000:]}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(names) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
