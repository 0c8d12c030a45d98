"""TensorDescriptor: a tensor passed to a kernel as a tensor descriptor
(Triton's triton.tools.tensor_descriptor.TensorDescriptor).

A kernel parameter given a TensorDescriptor is a `tl.tensor_descriptor` in
the kernel: `desc.load([i, j])` reads the block of `block_shape` starting at
element (i, j), zero (or NaN) outside `shape`; `desc.store([i, j], x)` writes
one, nothing outside. The rules are Triton's (the ones TMA sets): 1 to 5
dimensions; the last stride 1; the base address and every other stride a
multiple of 16 bytes; block dimensions powers of two of at most 256, at
least 16 bytes along the last. docs/language.md, "Tensor descriptors".
"""

from dataclasses import dataclass
from typing import Any, List

from .. import _args

__all__ = ["TensorDescriptor"]


def tma_box(bits, block_shape, padding):
    """(box inner, box rows, swizzle bytes) of the tensor map a kernel
    compiled with TMA reads a descriptor of `bits`-bit elements and
    `block_shape` through, or None when TMA does not stage such blocks
    (the kernel then takes no tensor map). The rule is the compiler's
    (tile.make_descriptor, tile.tma_copy, tile.tma_copy_pages): blocks of
    16-bit elements whose rows run along at most one dimension before the
    last (2-D blocks, and a paged cache's [1, R, 1, D]), at most 256 rows,
    at least 32 bytes along the last dimension, zero padding; one box per
    column of S = min(128, row bytes) bytes, swizzled S bytes, as wgmma
    reads the staged tile."""
    if bits != 16 or len(block_shape) < 2 or padding != "zero":
        return None
    lead, cols = block_shape[:-1], block_shape[-1]
    rows = 1
    for d in lead:
        rows *= d
    row_bytes = cols * 2
    if sum(d > 1 for d in lead) > 1 or rows > 256 or row_bytes < 32:
        return None
    swizzle = min(128, row_bytes)
    return swizzle // 2, rows, swizzle


def tma_box_dims(block_shape, box):
    """The box of every dimension, innermost first, for tma_box's `box`:
    the column's elements, then the block's other dimensions."""
    return [box[0]] + list(reversed(block_shape[:-1]))


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        where = "TensorDescriptor"
        v = _args.view(self.base, where)
        if v is None:
            raise TypeError(f"{where}: base must be a tensor or array, got "
                            f"{_args.describe(self.base)}")
        for name in ("shape", "strides", "block_shape"):
            object.__setattr__(self, name, [_int(s, where, name)
                                            for s in getattr(self, name)])
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise ValueError(f"{where}: 1 to 5 dimensions, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"{where}: shape {self.shape}, strides "
                             f"{self.strides} and block_shape "
                             f"{self.block_shape} differ in rank")
        size = v.itemsize
        if v.dtype == "i1":
            raise TypeError(f"{where}: bool elements are not supported (pass "
                            "uint8 or int8)")
        if self.strides[-1] != 1:
            raise ValueError(f"{where}: the last stride must be 1, got "
                             f"{self.strides[-1]}")
        if v.ptr % 16:
            raise ValueError(f"{where}: the base address must be a multiple "
                             f"of 16 bytes, got {v.ptr:#x}")
        for s in self.strides[:-1]:
            if s * size % 16:
                raise ValueError(
                    f"{where}: strides other than the last must be multiples "
                    f"of 16 bytes, got {s} elements of {size} bytes "
                    f"(strides {self.strides})")
        for d in self.block_shape:
            if d < 1 or d & (d - 1) or d > 256:
                raise ValueError(f"{where}: block_shape {self.block_shape} "
                                 "must be powers of two of at most 256")
        if self.block_shape[-1] * size < 16:
            raise ValueError(f"{where}: the block's last dimension must hold "
                             f"at least 16 bytes, got {self.block_shape[-1]}"
                             f" x {size}")
        if any(s < 0 for s in self.shape) or any(s > 2**31 - 1
                                                 for s in self.shape):
            raise ValueError(f"{where}: shape {self.shape} must be in "
                             "[0, 2^31)")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"{where}: padding must be 'zero' or 'nan', "
                             f"got {self.padding!r}")
        if self.padding == "nan" and not v.dtype.startswith(("f", "bf")):
            raise ValueError(f"{where}: 'nan' padding needs floating-point "
                             f"elements, got {v.dtype}")
        object.__setattr__(self, "_view", v)
        object.__setattr__(self, "_tmap", None)
        object.__setattr__(self, "_checked", (list(self.shape),
                                              list(self.strides)))

    def _tensormap(self):
        """The 128-byte tensor map (CUtensorMap) of this descriptor for a
        kernel compiled with TMA (tma_box), encoded by the driver when the
        base address, shape or strides differ from the last encoding's (a
        list changed in place included)."""
        from ..runtime.launcher import descriptor_ptr
        ptr = descriptor_ptr(self)
        key = (ptr, tuple(self.shape), tuple(self.strides))
        cached = self._tmap
        if cached is not None and cached[0] == key:
            return cached[1]
        if key[1:] != (tuple(self._checked[0]), tuple(self._checked[1])):
            self.__post_init__()  # a field changed in place: check it again
        tmap = self.encoder()(ptr)
        object.__setattr__(self, "_tmap", (key, tmap))
        return tmap

    def encoder(self):
        """A function of a base address giving the tensor map of this
        descriptor's shape, strides, block and padding at that address
        (what a plan re-encodes when a run's tensor moves); it holds no
        reference to the base."""
        from .. import _cuda
        v = self._view
        box = tma_box(v.itemsize * 8, self.block_shape, self.padding)
        if box is None:
            raise ValueError("TensorDescriptor: TMA does not read this "
                             "descriptor's blocks")
        dtype, dims = v.dtype, list(reversed(self.shape))
        strides = [s * v.itemsize for s in reversed(self.strides[:-1])]
        box_dims = tma_box_dims(self.block_shape, box)

        def encode(ptr):
            # An empty tensor: every element of every block is padding. The
            # driver takes no zero extent, so the map describes one zero
            # element (the same strides: the copies address nothing else
            # in bounds).
            at, extent = ptr, dims
            if 0 in dims:
                at, extent = _cuda.zeros_address(), [1] * len(dims)
            return _cuda.encode_tensormap(at, dtype, extent, strides,
                                          box_dims, box[2])
        return encode

    def __setattr__(self, name, value):
        # A changed field is checked again (its key and launch values come
        # from the checked view).
        object.__setattr__(self, name, value)
        if name in _FIELDS and "_view" in self.__dict__:
            self.__post_init__()

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding="zero"):
        """The descriptor of all of `tensor` (its shape and strides)."""
        v = _args.view(tensor, "TensorDescriptor.from_tensor")
        if v is None:
            raise TypeError(f"TensorDescriptor.from_tensor: expected a "
                            f"tensor or array, got {_args.describe(tensor)}")
        return TensorDescriptor(tensor, list(v.shape), list(v.strides),
                                list(block_shape), padding)


_FIELDS = ("base", "shape", "strides", "block_shape", "padding")


def _int(v, where, what):
    if isinstance(v, bool) or not hasattr(type(v), "__index__"):
        raise TypeError(f"{where}: {what} must be integers, got {v!r}")
    return int(v.__index__())
