"""The CUDA driver API, loaded at run time with ctypes.

Only what launching and timing compiled kernels needs: the primary context of
a device (the one PyTorch uses, so tensors and kernels share it), modules from
PTX or cubin, kernel attributes, launches, events and a memset. Nothing here
touches the driver until a kernel is launched (or a compute capability asked
for), so `import quire` works on machines without a GPU.
"""

import ctypes
import struct
import sys
import threading

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_EVENT_DEFAULT = 0
CU_EVENT_DISABLE_TIMING = 2
CU_STREAM_NON_BLOCKING = 1
CUDA_ERROR_NOT_READY = 600


class CudaError(RuntimeError):
    """A CUDA driver call failed, or there is no driver."""


_lock = threading.RLock()
_lib = None
_load_error = None


def _symbol(lib, *names):
    """The first of `names` the driver exports (newer ABIs first)."""
    for name in names:
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn
    raise CudaError(f"the CUDA driver lacks {names[-1]}")


def _driver():
    global _lib, _load_error
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            if _load_error is not None:
                raise CudaError(_load_error)
            try:
                lib = ctypes.CDLL("libcuda.so.1")
            except OSError as e:
                _load_error = ("the CUDA driver (libcuda.so.1) is not "
                               f"available: {e}")
                raise CudaError(_load_error) from None
            status = lib.cuInit(0)
            if status != 0:
                _load_error = (f"cuInit failed: CUDA error {status} "
                               f"({_error_string(lib, status)}); is there a "
                               "GPU?")
                raise CudaError(_load_error)
            _lib = lib
        return _lib


def available():
    """True when the driver loads and initializes (a GPU is present)."""
    try:
        _driver()
        return device_count() > 0
    except CudaError:
        return False


def _error_string(lib, status):
    msg = ctypes.c_char_p()
    if lib is not None and lib.cuGetErrorString(status, ctypes.byref(msg)) == 0:
        if msg.value:
            return msg.value.decode(errors="replace")
    return "unknown error"


def check(status, what):
    if status != 0:
        raise CudaError(f"{what} failed: CUDA error {status} "
                        f"({_error_string(_lib, status)})")


# cuTensorMapEncodeTiled's enums (cuda.h): CUtensorMapDataType by element
# dtype, CUtensorMapSwizzle by bytes.
_TMAP_DTYPES = {"f16": 6, "bf16": 9, "i16": 1, "u16": 1}
_TMAP_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
_TMAP_L2_PROMOTION_128B = 2


def tensormap_args(dtype, dims, strides, box, swizzle):
    """The arguments of cuTensorMapEncodeTiled after the tensor map and the
    address: data type, rank, global dims and byte strides (innermost
    first, strides of dimensions 1..), box, element strides, interleave
    (none), swizzle, L2 promotion, out-of-bounds fill (zeros)."""
    rank = len(dims)
    if dtype not in _TMAP_DTYPES:
        raise ValueError(f"tensor maps of {dtype} elements are not supported")
    if len(strides) != rank - 1 or len(box) != rank:
        raise ValueError(f"tensor map of rank {rank}: {len(strides)} strides "
                         f"and {len(box)} box dimensions")
    for s in strides:
        if s % 16 or s >= 1 << 40:
            raise ValueError(f"tensor map strides must be multiples of 16 "
                             f"bytes below 2^40, got {strides}")
    u64 = ctypes.c_uint64 * rank
    u32 = ctypes.c_uint32 * rank
    return (_TMAP_DTYPES[dtype], rank, u64(*dims),
            (ctypes.c_uint64 * max(1, rank - 1))(*strides), u32(*box),
            u32(*([1] * rank)), 0, _TMAP_SWIZZLE[swizzle],
            _TMAP_L2_PROMOTION_128B, 0)


def encode_tensormap(ptr, dtype, dims, strides, box, swizzle):
    """A CUtensorMap (128 bytes) for the tensor at device address `ptr`:
    tile mode, dims and byte strides innermost first, `box` elements per
    copy, `swizzle` bytes (0, 32, 64 or 128), zeros outside the tensor."""
    args = tensormap_args(dtype, dims, strides, box, swizzle)
    if ptr % 16:
        raise ValueError(f"a tensor map's address must be a multiple of 16 "
                         f"bytes, got {ptr:#x}")
    lib = _driver()
    fn = _symbol(lib, "cuTensorMapEncodeTiled")
    # A CUtensorMap is 64-byte aligned.
    buf = ctypes.create_string_buffer(128 + 64)
    at = (ctypes.addressof(buf) + 63) & ~63
    check(fn(ctypes.c_void_p(at), ctypes.c_int(args[0]),
             ctypes.c_uint32(args[1]), ctypes.c_void_p(ptr), args[2],
             args[3], args[4], args[5], ctypes.c_int(args[6]),
             ctypes.c_int(args[7]), ctypes.c_int(args[8]),
             ctypes.c_int(args[9])), "cuTensorMapEncodeTiled")
    return ctypes.string_at(at, 128)


def device_count():
    lib = _driver()
    n = ctypes.c_int()
    check(lib.cuDeviceGetCount(ctypes.byref(n)), "cuDeviceGetCount")
    return n.value


def device_attribute(attr, device=0):
    lib = _driver()
    dev = ctypes.c_int()
    check(lib.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
    value = ctypes.c_int()
    check(lib.cuDeviceGetAttribute(ctypes.byref(value), attr, dev),
          "cuDeviceGetAttribute")
    return value.value


def compute_capability(device=0):
    major = device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
    minor = device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
    return major * 10 + minor


def current_device():
    """torch's current device when torch is in use, else the device of the
    current context, else 0. Never imports torch."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available():
                return torch.cuda.current_device()
        except Exception:  # a broken torch install should not block us
            pass
    if _lib is not None:
        dev = ctypes.c_int()
        if _lib.cuCtxGetDevice(ctypes.byref(dev)) == 0:
            return dev.value
    return 0


_contexts = {}


def make_current(device=0):
    """Makes the device's primary context current on this thread."""
    lib = _driver()
    ctx = _contexts.get(device)
    if ctx is None:
        with _lock:
            ctx = _contexts.get(device)
            if ctx is None:
                dev = ctypes.c_int()
                check(lib.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
                ctx = ctypes.c_void_p()
                check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                      "cuDevicePrimaryCtxRetain")
                _contexts[device] = ctx
    check(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def stream_handle(stream, device=None):
    """A CUstream for `stream`: None is torch's current stream on `device`
    when torch is in use, else the legacy default stream; ints are raw
    handles; torch/cupy streams and `__cuda_stream__` objects are read."""
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is not None:
            try:
                if torch.cuda.is_initialized():
                    # The raw handle without a Stream object (it is on
                    # every launch's path), as Triton's launcher reads it.
                    raw = getattr(torch._C, "_cuda_getCurrentRawStream",
                                  None)
                    if raw is None:
                        return torch.cuda.current_stream(device).cuda_stream
                    return raw(torch.cuda.current_device() if device is None
                               else device)
            except Exception:
                pass
        return 0
    if isinstance(stream, bool):
        raise TypeError("stream must be a CUDA stream, a handle or None, "
                        "got a bool")
    if isinstance(stream, int):
        if not 0 <= stream < 2 ** 64:
            raise ValueError(f"stream handle {stream} is out of range")
        return stream
    if hasattr(stream, "__cuda_stream__"):
        _, handle = stream.__cuda_stream__()
        return int(handle)
    for attr in ("cuda_stream", "ptr", "handle"):
        handle = getattr(stream, attr, None)
        if isinstance(handle, int) and not isinstance(handle, bool):
            return handle
    raise TypeError(f"stream must be a CUDA stream, a handle or None, got "
                    f"{type(stream).__name__}")


class Module:
    """A loaded PTX or cubin image and one kernel of it."""

    def __init__(self, image: bytes, kernel_name: str, shared_bytes: int,
                 device=0):
        lib = _driver()
        make_current(device)
        self.module = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image)
        check(lib.cuModuleLoadData(ctypes.byref(self.module), buf),
              "cuModuleLoadData")
        self.function = ctypes.c_void_p()
        check(lib.cuModuleGetFunction(ctypes.byref(self.function), self.module,
                                      kernel_name.encode()),
              "cuModuleGetFunction")
        self.shared_bytes = shared_bytes
        if shared_bytes > 48 * 1024:
            limit = device_attribute(
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device)
            if shared_bytes > limit:
                raise CudaError(
                    f"kernel '{kernel_name}' needs {shared_bytes} bytes of "
                    f"shared memory; the device allows {limit}")
            check(lib.cuFuncSetAttribute(
                self.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes), "cuFuncSetAttribute")

    def launch(self, grid, threads, params, stream=0):
        lib = _driver()
        n = len(params)
        arg_ptrs = (ctypes.c_void_p * max(1, n))(
            *[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in params])
        check(lib.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                 threads, 1, 1, self.shared_bytes,
                                 ctypes.c_void_p(stream), arg_ptrs, None),
              "cuLaunchKernel")

    def launch_packed(self, grid, threads, packing, values, stream=0):
        """Launch with the parameters packed by one struct.pack_into into a
        buffer (`packing`: an ArgPacking of the kernel's signature)."""
        buf = ctypes.create_string_buffer(packing.size or 1)
        packing.struct.pack_into(buf, 0, *values)
        base = ctypes.addressof(buf)
        arg_ptrs = (ctypes.c_void_p * max(1, len(packing.offsets)))(
            *[base + off for off in packing.offsets])
        check(_driver().cuLaunchKernel(
            self.function, grid[0], grid[1], grid[2], threads, 1, 1,
            self.shared_bytes, ctypes.c_void_p(stream), arg_ptrs, None),
            "cuLaunchKernel")


class ArgPacking:
    """How a kernel's parameters lie in one buffer: `codes` are struct
    codes ("Q" pointer or 64-bit, "I", "H", "B", "f", "d"), each at an
    offset aligned to its size."""

    def __init__(self, codes):
        fmt, self.offsets, off = "<", [], 0
        for c in codes:
            size = struct.calcsize("<" + c)
            pad = -off % size
            fmt += "x" * pad + c
            off += pad
            self.offsets.append(off)
            off += size
        self.struct = struct.Struct(fmt)
        self.size = off


class Event:
    """A CUDA event with timing (for quire.testing.do_bench), or without
    (`timing=False`: the cheaper kind, for ordering streams)."""

    def __init__(self, timing=True):
        lib = _driver()
        self.handle = ctypes.c_void_p()
        check(lib.cuEventCreate(ctypes.byref(self.handle),
                                CU_EVENT_DEFAULT if timing else
                                CU_EVENT_DISABLE_TIMING), "cuEventCreate")

    def record(self, stream=0):
        check(_lib.cuEventRecord(self.handle, ctypes.c_void_p(stream)),
              "cuEventRecord")

    def wait(self, stream=0):
        """Makes `stream` wait for this event's last record (captured as a
        dependency edge when the stream is in a CUDA graph capture)."""
        check(_lib.cuStreamWaitEvent(ctypes.c_void_p(stream), self.handle, 0),
              "cuStreamWaitEvent")

    def synchronize(self):
        check(_lib.cuEventSynchronize(self.handle), "cuEventSynchronize")

    def elapsed_ms(self, end):
        ms = ctypes.c_float()
        fn = _symbol(_lib, "cuEventElapsedTime_v2", "cuEventElapsedTime")
        check(fn(ctypes.byref(ms), self.handle, end.handle),
              "cuEventElapsedTime")
        return ms.value

    def __del__(self):
        if _lib is not None and self.handle:
            _lib.cuEventDestroy_v2(self.handle)
            self.handle = ctypes.c_void_p()


class DeviceBuffer:
    """Raw device memory (do_bench's L2-flushing buffer)."""

    def __init__(self, nbytes):
        lib = _driver()
        self.ptr = ctypes.c_uint64()
        self.nbytes = nbytes
        check(lib.cuMemAlloc_v2(ctypes.byref(self.ptr), ctypes.c_size_t(nbytes)),
              "cuMemAlloc")

    def zero(self, stream=0):
        check(_lib.cuMemsetD32Async(self.ptr, ctypes.c_uint(0),
                                    ctypes.c_size_t(self.nbytes // 4),
                                    ctypes.c_void_p(stream)),
              "cuMemsetD32Async")

    def __del__(self):
        if _lib is not None and self.ptr.value:
            _lib.cuMemFree_v2(self.ptr)
            self.ptr = ctypes.c_uint64()


_zeros = {}


def zeros_address():
    """The address of 16 zero bytes in the current context's device memory
    (made once per context): what the tensor map of an empty tensor
    describes, so that a block read through it is all padding."""
    ctx = ctypes.c_void_p()
    check(_driver().cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    buf = _zeros.get(ctx.value)
    if buf is None:
        with _lock:
            buf = _zeros.get(ctx.value)
            if buf is None:
                buf = DeviceBuffer(16)
                buf.zero()
                synchronize()
                _zeros[ctx.value] = buf
    return buf.ptr.value


def synchronize():
    check(_driver().cuCtxSynchronize(), "cuCtxSynchronize")


def capturing(stream):
    """True when `stream` (a raw handle) is being captured into a CUDA
    graph, or when the driver cannot tell (a legacy-stream query during
    another stream's global capture fails): what a launch on it may use
    must then come from the capture's own allocations."""
    state = ctypes.c_int()
    status = _driver().cuStreamIsCapturing(ctypes.c_void_p(stream),
                                           ctypes.byref(state))
    return status != 0 or state.value != 0


_side_streams = {}


def side_stream(device):
    """A non-blocking stream of `device`'s primary context, one per device
    for the process, on which a launch can run beside the caller's stream
    (forked from it and joined back with events)."""
    handle = _side_streams.get(device)
    if handle is None:
        with _lock:
            handle = _side_streams.get(device)
            if handle is None:
                make_current(device)
                h = ctypes.c_void_p()
                check(_driver().cuStreamCreate(ctypes.byref(h),
                                               CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate")
                handle = _side_streams[device] = h.value
    return handle
