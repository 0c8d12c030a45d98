"""Launch-argument checks against the signature, with tensor-like objects
that have `__cuda_array_interface__` but no memory: every check here fails
before the driver is touched, so no GPU is needed."""

import pytest

import quire
from conftest import FakeCudaArray, example, has_gpu

ALIGNED = 0x7F0000000000


@pytest.fixture(scope="module")
def vadd():
    return quire.compile(example("vector_add.mlir"), sm=90)


@pytest.fixture(scope="module")
def vadd16():
    src = open(example("vector_add.mlir")).read().replace(
        "%n: i32)", "%n: i32 {tile.divisibility = 16 : i32})")
    return quire.compile(src, sm=90)


def f32(n=1024, ptr=ALIGNED, **kw):
    return FakeCudaArray((n,), "<f4", ptr, **kw)


class TorchLike:
    """Duck-types a torch tensor: data_ptr(), stride(), dtype, device."""

    class _Device:
        def __init__(self, type, index):
            self.type, self.index = type, index

        def __str__(self):
            return self.type if self.index is None else f"{self.type}:{self.index}"

    def __init__(self, dtype="torch.float32", device=("cuda", 0),
                 ptr=ALIGNED, shape=(1024,)):
        self.dtype, self.device = dtype, self._Device(*device)
        self._ptr, self.shape = ptr, shape

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return (1,)


def test_argument_count(vadd):
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        vadd[(1,)](f32(), f32(), f32())
    with pytest.raises(TypeError, match="takes 4 arguments, got 5"):
        vadd[(1,)](f32(), f32(), f32(), 1, 2)


@pytest.mark.parametrize("value, exc, message", [
    (None, TypeError, r"argument #0 \(!tile.ptr<f32>\) of 'vector_add': expected a CUDA tensor, got None"),
    (3, TypeError, "expected a CUDA tensor, got int"),
    ("x", TypeError, "expected a CUDA tensor, got str"),
    (FakeCudaArray((4,), "<f2"), TypeError, "expected float32 data, got float16"),
    (FakeCudaArray((4,), "<i4"), TypeError, "expected float32 data, got int32"),
    (FakeCudaArray((4,), ">f4"), ValueError, "big-endian"),
    (FakeCudaArray((4,), "<c8"), TypeError, "unsupported element type"),
    (FakeCudaArray((4,), "<f4", ptr=ALIGNED + 4), ValueError,
     "not aligned to 16 bytes"),
    (FakeCudaArray((4,), "<f4", ptr=-1), TypeError, "malformed data"),
    (FakeCudaArray((4,), "<f4", ptr=2 ** 64), TypeError, "malformed data"),
    (FakeCudaArray((4,), "<f4", strides=(6,)), ValueError, "not multiples"),
    (FakeCudaArray((4,), "f"), TypeError, "malformed typestr"),
    (TorchLike("torch.float16"), TypeError, "expected float32 data, got float16"),
    (TorchLike("torch.complex64"), TypeError, "unsupported dtype"),
    (TorchLike(device=("cpu", None)), ValueError, "expected a CUDA tensor, got one on the CPU"),
    (TorchLike(device=("meta", None)), ValueError, "tensors on meta"),
    (TorchLike(ptr=ALIGNED + 8), ValueError, "not aligned"),
])
def test_pointer_checks(vadd, value, exc, message):
    with pytest.raises(exc, match=message):
        vadd[(1,)](value, f32(), f32(), 1024)


def test_numpy_array_is_not_a_cuda_tensor(vadd):
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="expected a CUDA tensor, got one on the CPU"):
        vadd[(1,)](np.zeros(4, np.float32), f32(), f32(), 4)


def test_malformed_interface_dict(vadd):
    class Bad:
        __cuda_array_interface__ = ["not", "a", "dict"]
    with pytest.raises(TypeError, match="is not a dict"):
        vadd[(1,)](Bad(), f32(), f32(), 4)


def test_tensors_on_several_devices(vadd):
    with pytest.raises(ValueError, match="several devices"):
        vadd[(1,)](TorchLike(device=("cuda", 0)), TorchLike(device=("cuda", 1)),
                   f32(), 4)


@pytest.mark.parametrize("n, exc, message", [
    ("5", TypeError, "expected an int, got str"),
    (1.0, TypeError, "expected an int, got float"),
    (True, TypeError, "got a bool"),
    (None, TypeError, "expected an int, got None"),
    (b"5", TypeError, "expected an int, got bytes"),
    (2 ** 32, ValueError, "does not fit in 32 bits"),
    (-2 ** 31 - 1, ValueError, "does not fit in 32 bits"),
    (10 ** 100, ValueError, "does not fit in 32 bits"),
])
def test_integer_checks(vadd, n, exc, message):
    with pytest.raises(exc, match=message):
        vadd[(1,)](f32(), f32(), f32(), n)


def test_integer_divisibility(vadd16):
    with pytest.raises(ValueError, match="1000 is not a multiple of 16"):
        vadd16[(1,)](f32(), f32(), f32(), 1000)


def test_integer_params_are_twos_complement():
    from quire import _args
    assert _args.int_param(-1, 32).value == 0xFFFFFFFF
    assert _args.int_param(2 ** 32 - 1, 32).value == 0xFFFFFFFF
    assert _args.int_param(-2, 64).value == 2 ** 64 - 2
    assert _args.signed64(2 ** 64 - 1) == -1


@pytest.mark.parametrize("value, exc, message", [
    ("1.0", TypeError, "expected a float, got str"),
    (None, TypeError, "expected a float, got None"),
    (True, TypeError, "expected a float, got bool"),
    ([1.0], TypeError, "expected a float, got list"),
    (1e39, ValueError, "overflows f32"),
    (10 ** 400, ValueError, "overflows f32"),
])
def test_float_checks(value, exc, message):
    from quire import _args
    with pytest.raises(exc, match=message):
        _args.check_float(value, {"type": "f32", "bits": 32}, "x")


def test_float_params():
    from quire import _args
    assert _args.float_param(1.0, {"type": "f16"}).value == 0x3C00
    assert _args.float_param(1.0, {"type": "bf16"}).value == 0x3F80
    assert _args.float_param(float("inf"), {"type": "bf16"}).value == 0x7F80
    assert _args.float_param(float("nan"), {"type": "bf16"}).value == 0x7FC0
    assert _args.check_float(float("inf"), {"type": "f32", "bits": 32}, "x") == float("inf")
    assert _args.check_float(3, {"type": "f32", "bits": 32}, "x") == 3.0
    with pytest.raises(ValueError, match="overflows f16"):
        _args.check_float(70000.0, {"type": "f16", "bits": 16}, "x")


@pytest.mark.parametrize("grid, exc, message", [
    (-1, ValueError, "negative"),
    ((1, -2), ValueError, "negative"),
    ("4", TypeError, "grid dimension x: expected an int"),
    (None, TypeError, "expected an int"),
    (1.5, TypeError, "expected an int"),
    ((), ValueError, "1 to 3 dimensions"),
    ((1, 2, 3, 4), ValueError, "1 to 3 dimensions"),
    ((2 ** 31,), ValueError, "exceeds the CUDA limits"),
    ((1, 65536), ValueError, "exceeds the CUDA limits"),
    ((1, 1, 10 ** 30), ValueError, "exceeds the CUDA limits"),
])
def test_grid_checks(vadd, grid, exc, message):
    with pytest.raises(exc, match=message):
        vadd[grid]


def test_empty_grid_checks_arguments_and_launches_nothing(vadd):
    vadd[(0,)](f32(), f32(), f32(), 0)
    vadd[[4, 0]](f32(), f32(), f32(), 0)
    with pytest.raises(TypeError, match="expected an int"):
        vadd[(0,)](f32(), f32(), f32(), "0")


def test_bad_stream(vadd):
    with pytest.raises(TypeError, match="stream must be"):
        vadd[(1,)](f32(), f32(), f32(), 4, stream="default")
    with pytest.raises(ValueError, match="out of range"):
        vadd[(1,)](f32(), f32(), f32(), 4, stream=-1)


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
def test_valid_launch_without_a_gpu_is_a_cuda_error(vadd):
    with pytest.raises(quire.CudaError, match="CUDA driver|cuInit"):
        vadd[(1,)](f32(), f32(), f32(), 1024)
