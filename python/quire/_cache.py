"""The disk cache of compiled kernels (like ~/.triton/cache).

An entry is one JSON file named by the SHA-256 of everything the output
depends on: the source bytes, the options, the compiler version and the
build ID of libquire.so (which changes whenever any compiler code does).
Writers write a temporary file in the same directory and os.replace() it
into place, which is atomic on POSIX, so concurrent processes compiling the
same kernel each publish a complete entry and readers never see a partial
one. Unreadable or corrupt entries are misses; an unwritable cache directory
only costs the cache, never the compile.

    QUIRE_CACHE_DIR   the directory (default ~/.cache/quire)
    QUIRE_NO_CACHE=1  neither read nor write it
"""

import base64
import hashlib
import json
import os
import tempfile
import threading

from . import _lib

_FORMAT = 1
_lock = threading.Lock()

# Counters for this process, read through quire.cache_info(): tests and
# users check hits without timing anything.
stats = {"compiles": 0, "disk_hits": 0, "disk_misses": 0, "memory_hits": 0,
         "disk_write_errors": 0, "assembles": 0, "cubin_disk_hits": 0}


def count(name):
    with _lock:
        stats[name] += 1


def cache_dir():
    return os.environ.get("QUIRE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "quire")


def enabled():
    return os.environ.get("QUIRE_NO_CACHE", "") in ("", "0")


_compiler_id = None


def compiler_id():
    """Version and build ID of the loaded libquire."""
    global _compiler_id
    if _compiler_id is None:
        build = _lib.build_id()
        if not build:
            # No build ID note: fall back to the file's identity.
            path = _lib.library_path() or ""
            try:
                st = os.stat(path)
                build = f"{path}:{st.st_size}:{st.st_mtime_ns}"
            except OSError:
                build = path
        _compiler_id = f"{_lib.version()}+{build}"
    return _compiler_id


def key(source: bytes, **options):
    h = hashlib.sha256()
    h.update(json.dumps({"format": _FORMAT, "compiler": compiler_id(),
                         "options": options}, sort_keys=True).encode())
    h.update(b"\0")
    h.update(source)
    return h.hexdigest()


def _path(k):
    return os.path.join(cache_dir(), k[:2], k + ".json")


def load(k):
    """The entry {"output": bytes, "ptx": str, "metadata": dict,
    "diagnostics": str} for key `k`, or None."""
    if not enabled():
        return None
    try:
        with open(_path(k), "rb") as f:
            entry = json.loads(f.read())
        if entry.get("format") != _FORMAT or entry.get("key") != k:
            return None
        entry["output"] = base64.b64decode(entry["output"])
        if not isinstance(entry.get("metadata"), dict):
            return None
        return entry
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(k, output: bytes, ptx: str, metadata: dict, diagnostics: str):
    if not enabled():
        return
    path = _path(k)
    entry = {"format": _FORMAT, "key": k,
             "output": base64.b64encode(output).decode(), "ptx": ptx,
             "metadata": metadata, "diagnostics": diagnostics}
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path),
                                   prefix=".tmp-" + k[:16], suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        count("disk_write_errors")
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
