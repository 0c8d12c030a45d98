"""Paths, the torch requirement, and the header line every benchmark prints
(date, commit, GPU, driver and versions), so a saved log says what produced
it."""

import argparse
import datetime
import os
import subprocess
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
EXAMPLES = os.path.join(ROOT, "examples")


def python_path():
    """Where `import quire` comes from: $QUIRE_PYTHONPATH, else the source
    tree's python/ (which finds build/lib/libquire.so or $QUIRE_LIBRARY)."""
    return os.environ.get("QUIRE_PYTHONPATH", os.path.join(ROOT, "python"))


def parser(name, doc):
    """The argument parser of target `name`: its docstring as the help."""
    return argparse.ArgumentParser(
        prog=f"bench/run.py {name}", description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter)


def require_torch():
    """torch with a CUDA device, or exit with a message saying so."""
    try:
        import torch
    except ImportError:
        sys.exit(f"{sys.argv[0]}: needs torch with CUDA (torch is not installed); "
                 "run it on the GPU machine (tools/scripts/device-run.sh)")
    if not torch.cuda.is_available():
        sys.exit(f"{sys.argv[0]}: needs a CUDA GPU (torch.cuda.is_available() is "
                 "False)")
    return torch


def out_dir(default=None):
    """Where plots go: $BENCH_OUT, else `default`, else bench/out."""
    path = os.environ.get("BENCH_OUT") or default or os.path.join(BENCH, "out")
    os.makedirs(path, exist_ok=True)
    return path


def _git_commit():
    # A copy of the tree on another machine may carry a stale .git:
    # tools/scripts/device-pack.sh records the commit it packed.
    stamp = os.path.join(ROOT, ".device", "COMMIT")
    if os.path.exists(stamp):
        with open(stamp) as f:
            return f.read().strip()
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _driver():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                               "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?"


def describe():
    """One line: UTC date, commit (or the library's build ID when the tree
    has no .git), GPU, driver, CUDA, torch, triton and Python versions."""
    import torch
    import quire
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = "none"
    build = quire.compiler_version()["build_id"][:12]
    commit = _git_commit()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return (f"{date}, commit {commit or '?'} (libquire build {build}), "
            f"{torch.cuda.get_device_name()}, driver {_driver()}, CUDA "
            f"{torch.version.cuda}, torch {torch.__version__}, triton "
            f"{triton_version}, Python {sys.version.split()[0]}")


def print_header(name):
    """The first line of a log: `# bench/run.py NAME ARGS: <describe()>`."""
    args = " ".join(sys.argv[1:])
    print(f"# bench/run.py {name}{' ' + args if args else ''}: {describe()}",
          flush=True)
