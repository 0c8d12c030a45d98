"""libquire.so, the compiler, loaded with ctypes (the llvmlite pattern).

The library is a self-contained C API (include/quire-c/Quire.h) with LLVM and
MLIR linked in, so one build serves every Python 3 and needs no compiler at
run time. It is found, in this order, at:

1. ``$QUIRE_LIBRARY`` (a path to the file);
2. ``libquire.so`` next to this file (an installed or copied package);
3. ``../../lib/libquire.so`` from this file: the build tree layout, where
   CMake copies the package to ``<build>/python/quire`` and links the library
   to ``<build>/lib``;
4. ``../../build/lib/libquire.so`` from this file: the source tree layout,
   ``python/quire`` next to ``build/``.

Nothing is loaded until the first compile or interpret, so ``import quire``
works where the library is missing.
"""

import ctypes
import json
import os
import threading

API_VERSION = 1

EMIT_KINDS = {"ptx": 0, "cubin": 1, "meta": 2, "tile": 3, "llvm-mlir": 4,
              "llvm": 5}

INTERP_BUFFER, INTERP_INT, INTERP_FLOAT = 0, 1, 2


class LibraryError(OSError):
    """libquire.so is missing or does not match this package."""


class InterpArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32), ("read_only", ctypes.c_int32),
                ("data", ctypes.c_void_p), ("bytes", ctypes.c_uint64),
                ("int_value", ctypes.c_int64),
                ("float_value", ctypes.c_double)]


class Result:
    """A QuireResult copied into Python objects (the C object is freed)."""

    def __init__(self, ok, diagnostics, output, ptx, metadata, ir_dump=""):
        self.ok = ok
        self.diagnostics = diagnostics
        self.output = output
        self.ptx = ptx
        self.metadata = metadata
        self.ir_dump = ir_dump


_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("QUIRE_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "libquire.so"),
            os.path.normpath(os.path.join(here, "..", "..", "lib",
                                          "libquire.so")),
            os.path.normpath(os.path.join(here, "..", "..", "build", "lib",
                                          "libquire.so"))]


def library_path():
    """The libquire.so that is (or would be) loaded, or None."""
    for path in _candidates():
        if os.path.isfile(path):
            return path
    return None


def _declare(lib):
    c_void_p, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    sigs = {
        "quireGetAPIVersion": (ctypes.c_int, []),
        "quireGetVersion": (c_char_p, []),
        "quireGetBuildID": (c_char_p, []),
        "quireResultSucceeded": (ctypes.c_int, [c_void_p]),
        "quireResultGetDiagnostics": (c_void_p, [c_void_p]),
        "quireResultGetOutput": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
        "quireResultGetPTX": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
        "quireResultGetMetadata": (c_void_p, [c_void_p]),
        "quireResultDestroy": (None, [c_void_p]),
        "quireCompileOptionsCreate": (c_void_p, []),
        "quireCompileOptionsDestroy": (None, [c_void_p]),
        "quireCompileOptionsSetSM": (None, [c_void_p, ctypes.c_uint32]),
        "quireCompileOptionsSetNumWarps": (None, [c_void_p, ctypes.c_uint32]),
        "quireCompileOptionsSetEmit": (None, [c_void_p, ctypes.c_int32]),
        "quireCompileOptionsSetPagedChecked": (None, [c_void_p, ctypes.c_int32]),
        "quireCompileOptionsSetAsyncStages": (None, [c_void_p, ctypes.c_uint32]),
        "quireCompileOptionsSetWgmma": (None, [c_void_p, ctypes.c_int32]),
        "quireCompileOptionsSetMaxRegisters": (None, [c_void_p, ctypes.c_uint32]),
        "quireCompile": (c_void_p, [c_char_p, c_size_t, c_char_p, c_void_p]),
        "quireGetKernelInfo": (c_void_p, [c_char_p, c_size_t, c_char_p]),
        "quireInterpret": (c_void_p, [c_char_p, c_size_t, c_char_p, c_char_p,
                                      ctypes.POINTER(ctypes.c_int64),
                                      ctypes.POINTER(InterpArg), c_size_t]),
    }
    # Setters added after API version 1 (a library without one runs with
    # the option's default; asking for another value is an error).
    optional = {"quireCompileOptionsSetRaisePagedLoads":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetForwardStores":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetDumpIR":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetAsyncWgmma":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetEarlyDots":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetFpFusion":
                (None, [c_void_p, ctypes.c_int32]),
                "quireResultGetIRDump":
                (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)])}
    for name, (restype, argtypes) in list(sigs.items()) + list(optional.items()):
        try:
            fn = getattr(lib, name)
        except AttributeError:
            if name in optional:
                continue
            raise LibraryError(f"{lib._name} lacks {name}; rebuild Quire "
                               f"(target quire-python)") from None
        fn.restype = restype
        fn.argtypes = argtypes


def lib():
    """The loaded library (loads it on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            path = library_path()
            if path is None:
                raise LibraryError(
                    "libquire.so not found; looked at " +
                    ", ".join(_candidates()) + ". Build it with `ninja -C "
                    "build quire-python` and use PYTHONPATH=build/python, or "
                    "set QUIRE_LIBRARY=/path/to/libquire.so")
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                raise LibraryError(f"cannot load {path}: {e}") from None
            _declare(handle)
            got = handle.quireGetAPIVersion()
            if got != API_VERSION:
                raise LibraryError(
                    f"{path} implements C API version {got}, this package "
                    f"needs {API_VERSION}; rebuild Quire")
            _lib = handle
    return _lib


def version():
    return lib().quireGetVersion().decode()


def build_id():
    return lib().quireGetBuildID().decode()


def _bytes_at(fn, handle):
    size = ctypes.c_size_t()
    ptr = fn(handle, ctypes.byref(size))
    return ctypes.string_at(ptr, size.value) if ptr and size.value else b""


def _text_at(fn, handle):
    ptr = fn(handle)
    return ctypes.string_at(ptr).decode("utf-8", "replace") if ptr else ""


def _take(handle):
    """Copies a QuireResult into a Result and frees it."""
    L = lib()
    if not handle:
        raise MemoryError("libquire returned no result")
    try:
        metadata = _text_at(L.quireResultGetMetadata, handle)
        dump = getattr(L, "quireResultGetIRDump", None)
        return Result(
            ok=bool(L.quireResultSucceeded(handle)),
            diagnostics=_text_at(L.quireResultGetDiagnostics, handle),
            output=_bytes_at(L.quireResultGetOutput, handle),
            ptx=_bytes_at(L.quireResultGetPTX, handle).decode("utf-8", "replace"),
            metadata=json.loads(metadata) if metadata else None,
            ir_dump=_bytes_at(dump, handle).decode("utf-8", "replace")
            if dump is not None else "")
    finally:
        L.quireResultDestroy(handle)


def _name_bytes(name):
    # Names only label diagnostics; a NUL would silently cut them short.
    return os.fsencode(name).replace(b"\0", b"\\0")


def compile(source: bytes, name: str, sm: int, num_warps: int, emit: str,
            checked: bool = False, num_stages: int = 2, wgmma: bool = True,
            max_registers: int = 0, raise_paged_loads: bool = True,
            forward_stores: bool = True, dump_ir: bool = False,
            async_wgmma: bool = False, early_dots: bool = False,
            enable_fp_fusion: bool = True):
    L = lib()
    options = L.quireCompileOptionsCreate()
    if not options:
        raise MemoryError("quireCompileOptionsCreate failed")
    try:
        L.quireCompileOptionsSetSM(options, sm)
        L.quireCompileOptionsSetNumWarps(options, num_warps)
        L.quireCompileOptionsSetEmit(options, EMIT_KINDS[emit])
        L.quireCompileOptionsSetPagedChecked(options, int(checked))
        L.quireCompileOptionsSetAsyncStages(options, num_stages)
        L.quireCompileOptionsSetWgmma(options, int(wgmma))
        L.quireCompileOptionsSetMaxRegisters(options, max_registers)
        for setter, value, default, what in (
                ("quireCompileOptionsSetRaisePagedLoads", raise_paged_loads,
                 True, "turn quire-raise-paged-loads off"),
                ("quireCompileOptionsSetForwardStores", forward_stores,
                 True, "turn quire-forward-stores off"),
                ("quireCompileOptionsSetAsyncWgmma", async_wgmma, False,
                 "keep wgmma groups in flight (async_wgmma)"),
                ("quireCompileOptionsSetEarlyDots", early_dots, False,
                 "issue dots one iteration early (early_dots)"),
                ("quireCompileOptionsSetFpFusion", enable_fp_fusion, True,
                 "keep multiplies and adds unfused (enable_fp_fusion)")):
            fn = getattr(L, setter, None)
            if fn is not None:
                fn(options, int(value))
            elif value != default:
                raise LibraryError(f"{L._name} cannot {what}; "
                                   "rebuild Quire")
        if dump_ir:
            fn = getattr(L, "quireCompileOptionsSetDumpIR", None)
            if fn is None:
                raise LibraryError(f"{L._name} cannot dump the IR; rebuild "
                                   "Quire")
            fn(options, 1)
        return _take(L.quireCompile(source, len(source), _name_bytes(name),
                                    options))
    finally:
        L.quireCompileOptionsDestroy(options)


def kernel_info(source: bytes, name: str):
    return _take(lib().quireGetKernelInfo(source, len(source),
                                          _name_bytes(name)))


def interpret(source: bytes, name: str, kernel: str, grid, args):
    """Runs `kernel` over `grid`; `args` is a list of InterpArg."""
    L = lib()
    c_grid = (ctypes.c_int64 * 3)(*grid)
    c_args = (InterpArg * max(1, len(args)))(*args)
    return _take(L.quireInterpret(source, len(source), _name_bytes(name),
                                  kernel.encode(), c_grid, c_args, len(args)))
