"""tl.device_print (and print() of run-time values, as in Triton): one line
per element, `pid (x, y, z) idx (i, j) prefix: value`; in the interpreter
(QUIRE_INTERPRET, in CI) elements print in row-major order, on the GPU
(marked gpu) each by the thread that holds it, in no particular order."""

import os

import pytest

import quire
import quire.language as tl
import helpers
from conftest import FakeCudaArray

np = pytest.importorskip("numpy")


@quire.jit
def print_kernel(x_ptr, n, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)
    c = tl.arange(0, COLS)
    offs = r[:, None] * COLS + c[None, :]
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.device_print("r", r, n)
    tl.device_print("neg", r - 1, hex=True)
    print("offs of", c)
    tl.device_print("100% done")


EXPECTED = [
    "pid (1, 0, 0) idx (0, 0) x: 0.000000",
    "pid (1, 0, 0) idx (0, 1) x: 0.250000",
    "pid (1, 0, 0) idx (1, 0) x: 0.500000",
    "pid (1, 0, 0) idx (1, 1) x: 0.750000",
    "pid (1, 0, 0) idx (0) r (operand 0): 0",
    "pid (1, 0, 0) idx (1) r (operand 0): 1",
    "pid (1, 0, 0) r (operand 1): 5",
    "pid (1, 0, 0) idx (0) neg: 0xffffffff",
    "pid (1, 0, 0) idx (1) neg: 0x0",
    "pid (1, 0, 0) idx (0) offs of: 0",
    "pid (1, 0, 0) idx (1) offs of: 1",
    "pid (1, 0, 0) 100% done",
]


def test_interpreter_prints_every_element(monkeypatch, capfd):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = np.arange(4, dtype=np.float32) / 4
    capfd.readouterr()
    print_kernel[(2,)](x, 5, ROWS=2, COLS=2)
    out = capfd.readouterr().out.splitlines()
    # Program 0 first, then program 1, each in program order.
    assert out == [l.replace("pid (1,", "pid (0,") for l in EXPECTED] + \
        EXPECTED, out


@quire.jit
def print_float_hex(x_ptr):
    tl.device_print("x", tl.load(x_ptr), hex=True)  # ERR:hex


@quire.jit
def print_fp8(x_ptr):
    tl.device_print("x", tl.load(x_ptr))  # ERR:fp8


@quire.jit
def print_pointer(x_ptr):
    tl.device_print("p", x_ptr)  # ERR:pointer


@quire.jit
def print_string_after_tensor(x_ptr):
    print("x", tl.load(x_ptr), "tail")  # ERR:string


HERE = os.path.abspath(__file__)


@pytest.mark.parametrize("kernel, typestr, name, message", [
    (print_float_hex, "<f4", "hex", "hex=True prints integers; argument 0"),
    (print_fp8, "|u1", "fp8", "convert it with .to(tl.float32) first"),
    (print_pointer, "<f4", "pointer", "argument 0 is a pointer"),
    (print_string_after_tensor, "<f4", "string",
     "argument 1 is a string; the text goes in the prefix"),
])
def test_errors_are_located(kernel, typestr, name, message):
    x = FakeCudaArray((16,), typestr)
    if name == "fp8":
        x = quire.reinterpret(x, tl.float8e4nv)
    with pytest.raises(quire.CompilationError) as e:
        kernel.warmup(x, grid=(1,), sm=90)
    assert message in str(e.value), str(e.value)
    line = helpers.marker_line(HERE, name)
    assert f"test_frontend_print.py:{line}:" in str(e.value)


@quire.jit
def print_simple(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.device_print("x", tl.load(x_ptr + offs, mask=offs < n, other=0.0))
    tl.device_print("n", n)


def test_compiles_to_vprintf():
    ptx = print_simple.warmup(FakeCudaArray((16,), "<f4"), 7, BLOCK=16,
                              grid=(1,), sm=90).asm["ptx"]
    assert ptx.count("call.uni (retval0), vprintf") >= 2


# --- on the GPU -----------------------------------------------------------

@pytest.mark.gpu
def test_gpu_prints_every_element_once(capfd):
    torch = helpers.torch_cuda()
    x = torch.arange(16, dtype=torch.float32, device="cuda") / 4
    capfd.readouterr()
    print_simple[(2,)](x, 13, BLOCK=16)
    torch.cuda.synchronize()
    out = capfd.readouterr().out.splitlines()
    want = sorted([f"pid ({p}, 0, 0) idx ({i}) x: "
                   f"{(i / 4 if i < 13 else 0.0):f}"
                   for p in range(2) for i in range(16)] +
                  [f"pid ({p}, 0, 0) n: 13" for p in range(2)])
    assert sorted(l for l in out if l.startswith("pid")) == want
