"""`quire.runtime.driver`: the device queries Triton's tutorials make
through `triton.runtime.driver.active` (device properties for sizing
persistent grids, the current device and stream), over Quire's ctypes
driver layer.

    props = quire.runtime.driver.active.utils.get_device_properties(0)
    props["multiprocessor_count"], props["max_num_regs"]
"""

import sys

from .. import _cuda

# CUdevice_attribute values (cuda.h).
_ATTRS = {
    "max_shared_mem": 97,          # MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    "max_num_regs": 12,            # MAX_REGISTERS_PER_BLOCK
    "multiprocessor_count": 16,    # MULTIPROCESSOR_COUNT
    "warpSize": 10,                # WARP_SIZE
    "sm_clock_rate": 13,           # CLOCK_RATE (kHz)
    "mem_clock_rate": 36,          # MEMORY_CLOCK_RATE (kHz)
    "mem_bus_width": 37,           # GLOBAL_MEMORY_BUS_WIDTH (bits)
}


class _Utils:
    def get_device_properties(self, device=None):
        """The properties Triton's driver reports, as a dict."""
        if device is None:
            device = _cuda.current_device()
        device = getattr(device, "index", device)
        if device is None:
            device = _cuda.current_device()
        return {name: _cuda.device_attribute(attr, device)
                for name, attr in _ATTRS.items()}


class _ActiveDriver:
    utils = _Utils()

    def get_current_device(self):
        return _cuda.current_device()

    def get_current_stream(self, device=None):
        return _cuda.stream_handle(None, self.get_current_device()
                                   if device is None else device)

    def get_current_target(self):
        cc = _cuda.compute_capability(self.get_current_device())
        return ("cuda", cc, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self):
        return sys.modules["torch"].cuda


active = _ActiveDriver()
