"""The CUDA driver API, loaded at run time with ctypes.

Only what launching a compiled kernel needs: the primary context of a device
(the one PyTorch uses, so tensors and kernels share it), modules from PTX or
cubin, kernel attributes and launches. Nothing here is imported until a
kernel is launched, so `import quire` works on machines without a GPU.
"""

import ctypes
import threading

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97


class CudaError(RuntimeError):
    """A CUDA driver call failed."""


_lock = threading.Lock()
_lib = None


def _driver():
    global _lib
    with _lock:
        if _lib is None:
            try:
                lib = ctypes.CDLL("libcuda.so.1")
            except OSError as e:
                raise CudaError(
                    "the CUDA driver (libcuda.so.1) is not available: " + str(e)
                ) from None
            _lib = lib
            check(lib.cuInit(0), "cuInit")
        return _lib


def check(status, what):
    if status != 0:
        lib = _lib
        msg = ctypes.c_char_p()
        if lib is not None:
            lib.cuGetErrorString(status, ctypes.byref(msg))
        text = msg.value.decode() if msg.value else "unknown error"
        raise CudaError(f"{what} failed: CUDA error {status} ({text})")


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


_contexts = {}


def make_current(device=0):
    """Makes the device's primary context current on this thread."""
    lib = _driver()
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
        arg_ptrs = (ctypes.c_void_p * n)(
            *[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in params])
        check(lib.cuLaunchKernel(self.function, grid[0], grid[1], grid[2],
                                 threads, 1, 1, self.shared_bytes,
                                 ctypes.c_void_p(stream), arg_ptrs, None),
              "cuLaunchKernel")
