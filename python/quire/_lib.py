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
from typing import NamedTuple

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


class Launch(ctypes.Structure):
    """QuireLaunch: one recorded CUDA launch for quireLaunchKernels."""
    _fields_ = [("function", ctypes.c_void_p),
                ("grid", ctypes.c_uint32 * 3),
                ("block", ctypes.c_uint32 * 3),
                ("shared_bytes", ctypes.c_uint32),
                ("params", ctypes.c_void_p),
                ("buffer", ctypes.c_void_p),
                ("slot_offsets", ctypes.c_void_p),
                ("slot_indices", ctypes.c_void_p),
                ("num_slots", ctypes.c_uint32)]


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
                "quireCompileOptionsSetPingpong":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetOverlapSoftmax":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetEarlyRelease":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetOrderedRelease":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetSplitIterations":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetSkipUnitRescale":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetGatheredRows":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetFpFusion":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetWideFp8Operands":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetTma":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetTmaRelease":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetWarpSpecialize":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetProducerWarpgroup":
                (None, [c_void_p, ctypes.c_int32]),
                "quireCompileOptionsSetProducerRegisters":
                (None, [c_void_p, ctypes.c_uint32]),
                "quireResultGetIRDump":
                (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
                # (cuLaunchKernel, launches, count, addresses, stream,
                # failed): pointers as ints, so a call converts nothing.
                "quireLaunchKernels":
                (ctypes.c_int, [c_void_p, c_void_p, c_size_t, c_void_p,
                                c_void_p, c_void_p])}
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


class Option(NamedTuple):
    """A compile option: its Python name (quire.compile's, the jit's launch
    option), default, C API setter, and what a library without the setter
    (one built before the option) cannot do."""
    name: str
    default: object
    setter: str
    what: str = ""


# Every compile option beyond sm, num_warps and emit, in one place: the
# C API call, quire.compile's validation and cache key, Kernel.asm and the
# jit's launch options and keys all come from this table.
OPTIONS = (
    Option("checked", False, "quireCompileOptionsSetPagedChecked"),
    Option("num_stages", 2, "quireCompileOptionsSetAsyncStages"),
    Option("wgmma", True, "quireCompileOptionsSetWgmma"),
    Option("max_registers", 0, "quireCompileOptionsSetMaxRegisters"),
    Option("raise_paged_loads", True, "quireCompileOptionsSetRaisePagedLoads",
           "turn quire-raise-paged-loads off"),
    Option("forward_stores", True, "quireCompileOptionsSetForwardStores",
           "turn quire-forward-stores off"),
    Option("async_wgmma", False, "quireCompileOptionsSetAsyncWgmma",
           "keep wgmma groups in flight (async_wgmma)"),
    Option("early_dots", False, "quireCompileOptionsSetEarlyDots",
           "issue dots one iteration early (early_dots)"),
    Option("overlap_softmax", False, "quireCompileOptionsSetOverlapSoftmax",
           "overlap an attention loop's softmax with its P V "
           "(overlap_softmax)"),
    Option("early_release", True, "quireCompileOptionsSetEarlyRelease",
           "release K's stage with V's, after P V (early_release)"),
    Option("ordered_release", False, "quireCompileOptionsSetOrderedRelease",
           "wait for P V after the softmax's row sums "
           "(ordered_release)"),
    Option("convert_after_wait", False,
           "quireCompileOptionsSetConvertAfterWait",
           "convert the softmax's P after P V's wait (convert_after_wait)"),
    Option("skip_unit_rescale", False, "quireCompileOptionsSetSkipUnitRescale",
           "skip an attention rescale by factors that are all 1 "
           "(skip_unit_rescale)"),
    Option("split_iterations", False, "quireCompileOptionsSetSplitIterations",
           "split a dot loop where a branch on its induction variable "
           "turns (split_iterations)"),
    Option("pingpong", False, "quireCompileOptionsSetPingpong",
           "run two warpgroups half an iteration apart (pingpong)"),
    Option("gathered_rows", False, "quireCompileOptionsSetGatheredRows",
           "give a thread consecutive rows of a gathered load "
           "(gathered_rows)"),
    Option("enable_fp_fusion", True, "quireCompileOptionsSetFpFusion",
           "keep multiplies and adds unfused (enable_fp_fusion)"),
    Option("wide_fp8_operands", True,
           "quireCompileOptionsSetWideFp8Operands",
           "read staged fp8 dot operands byte by byte (wide_fp8_operands)"),
    Option("tma", True, "quireCompileOptionsSetTma",
           "stage tensor-descriptor operands with cp.async (tma=False)"),
    Option("tma_release", False, "quireCompileOptionsSetTmaRelease",
           "release TMA stages through mbarriers (tma_release)"),
    Option("warp_specialize", False, "quireCompileOptionsSetWarpSpecialize",
           "give a staged loop's copies to producer warps (warp_specialize)"),
    Option("producer_warpgroup", False,
           "quireCompileOptionsSetProducerWarpgroup",
           "give a staged loop's copies to a producer warpgroup "
           "(producer_warpgroup)"),
    Option("producer_registers", 0,
           "quireCompileOptionsSetProducerRegisters",
           "set a producer warpgroup's registers (producer_registers)"),
)
OPTION_DEFAULTS = {o.name: o.default for o in OPTIONS}


def compile(source: bytes, name: str, sm: int, num_warps: int, emit: str,
            dump_ir: bool = False, **options):
    """Compiles `source` through the C API with `options` (names of
    OPTIONS; the others keep their defaults)."""
    unknown = set(options) - set(OPTION_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown compile option {sorted(unknown)[0]!r}")
    L = lib()
    handle = L.quireCompileOptionsCreate()
    if not handle:
        raise MemoryError("quireCompileOptionsCreate failed")
    try:
        L.quireCompileOptionsSetSM(handle, sm)
        L.quireCompileOptionsSetNumWarps(handle, num_warps)
        L.quireCompileOptionsSetEmit(handle, EMIT_KINDS[emit])
        for option in OPTIONS:
            value = options.get(option.name, option.default)
            fn = getattr(L, option.setter, None)
            if fn is not None:
                fn(handle, int(value))
            elif value != option.default:
                raise LibraryError(f"{L._name} cannot {option.what}; "
                                   "rebuild Quire")
        if dump_ir:
            fn = getattr(L, "quireCompileOptionsSetDumpIR", None)
            if fn is None:
                raise LibraryError(f"{L._name} cannot dump the IR; rebuild "
                                   "Quire")
            fn(handle, 1)
        return _take(L.quireCompile(source, len(source), _name_bytes(name),
                                    handle))
    finally:
        L.quireCompileOptionsDestroy(handle)


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
