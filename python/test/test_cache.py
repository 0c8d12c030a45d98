"""The disk cache: a second process finds what the first compiled, keys
separate what differs, concurrent writers never leave a torn entry, and a
broken cache only costs time."""

import glob
import json
import os
import subprocess
import sys

import pytest

import quire
from conftest import example

# Prints the process's cache counters after compiling `argv[1]` twice.
CHILD = r"""
import json, sys
import quire
a = quire.compile(sys.argv[1], sm=90, num_warps=int(sys.argv[2]))
b = quire.compile(sys.argv[1], sm=90, num_warps=int(sys.argv[2]))
assert a is b
print(json.dumps(quire.cache_info()))
"""


def _child_env(cache):
    env = dict(os.environ)
    env["QUIRE_CACHE_DIR"] = str(cache)
    env.pop("QUIRE_NO_CACHE", None)
    env["QUIRE_PTXAS"] = ""  # the PTX entries alone (test_ptxas.py: cubins)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(quire.__file__))] +
        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _run(cache, src, num_warps=4, extra_env=None):
    env = _child_env(cache)
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, "-c", CHILD, src, str(num_warps)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _entries(cache):
    return sorted(glob.glob(os.path.join(str(cache), "*", "*.json")))


def test_second_process_hits_the_disk_cache(tmp_path):
    src = example("softmax.mlir")
    first = _run(tmp_path, src)
    assert (first["compiles"], first["disk_misses"], first["disk_hits"],
            first["memory_hits"]) == (1, 1, 0, 1)
    assert len(_entries(tmp_path)) == 1
    mtime = os.stat(_entries(tmp_path)[0]).st_mtime_ns
    second = _run(tmp_path, src)
    assert (second["compiles"], second["disk_hits"]) == (0, 1)
    assert os.stat(_entries(tmp_path)[0]).st_mtime_ns == mtime


def test_options_and_source_are_in_the_key(tmp_path):
    src = example("vector_add.mlir")
    _run(tmp_path, src, num_warps=4)
    assert _run(tmp_path, src, num_warps=8)["compiles"] == 1
    edited = tmp_path / "edited.mlir"
    edited.write_text(open(src).read().replace("1024 : i32", "1024 : i32 "))
    assert _run(tmp_path, str(edited))["compiles"] == 1
    assert len(_entries(tmp_path)) == 3


def test_entries_name_the_compiler(tmp_path):
    _run(tmp_path, example("vector_add.mlir"))
    (path,) = _entries(tmp_path)
    entry = json.load(open(path))
    assert entry["metadata"]["kernels"][0]["name"] == "vector_add"
    assert os.path.basename(path) == entry["key"] + ".json"
    v = quire.compiler_version()
    from quire import _cache
    assert _cache.compiler_id() == f"{v['version']}+{v['build_id']}"


def test_concurrent_processes_publish_whole_entries(tmp_path):
    src = example("matmul.mlir")
    env = _child_env(tmp_path)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, src, "4"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    (path,) = _entries(tmp_path)
    json.load(open(path))  # complete JSON
    assert not glob.glob(os.path.join(str(tmp_path), "*", ".tmp-*"))
    assert _run(tmp_path, src)["disk_hits"] == 1


def test_corrupt_entry_is_a_miss_and_is_replaced(tmp_path):
    src = example("vector_add.mlir")
    _run(tmp_path, src)
    (path,) = _entries(tmp_path)
    with open(path, "w") as f:
        f.write('{"format": 1, "key": "trunc')
    assert _run(tmp_path, src)["compiles"] == 1
    assert _run(tmp_path, src)["disk_hits"] == 1


def test_unwritable_cache_dir_still_compiles(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    stats = _run(blocker, example("vector_add.mlir"))
    assert stats["compiles"] == 1 and stats["disk_write_errors"] == 1


def test_no_cache_env_writes_nothing(tmp_path):
    stats = _run(tmp_path, example("vector_add.mlir"),
                 extra_env={"QUIRE_NO_CACHE": "1"})
    assert stats["compiles"] == 1 and not stats["enabled"]
    assert _entries(tmp_path) == []


def test_compile_errors_are_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIRE_CACHE_DIR", str(tmp_path))
    for _ in range(2):
        with pytest.raises(quire.CompilationError):
            quire.compile("func.func @k( {", sm=90)
    assert _entries(tmp_path) == []


def test_default_dir(monkeypatch):
    from quire import _cache
    monkeypatch.delenv("QUIRE_CACHE_DIR")
    assert _cache.cache_dir() == os.path.join(os.path.expanduser("~"),
                                              ".cache", "quire")
