"""The frontend twins of the hand-written examples (bench/lib/
frontend_examples.py) compute what the examples compute, in the
interpreter, and compile to PTX of the same shape (the same vector loads,
tensor-core instructions, cp.async copies and shared memory)."""

import os
import re
import sys

import pytest

import quire
from conftest import FakeCudaArray, example

np = pytest.importorskip("numpy")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "bench"))
from lib import frontend_examples as fe  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(77)


def both(name, grid, make_args, **kw):
    """Runs the example and its twin on copies of the same inputs."""
    a, b = make_args(), make_args()
    quire.interpret(example(name), grid, *a)
    fn, consts = fe.EXAMPLES[name]
    fn.run(*b, grid=grid, **consts)
    return a, b


def test_vector_add(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x, y = rng.standard_normal((2, 3000)).astype(np.float32)
    a, b = both("vector_add.mlir", (3,), lambda: (
        x, y, np.full(3000, np.nan, np.float32), 3000))
    np.testing.assert_array_equal(a[2], b[2])


def test_softmax(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    x = rng.standard_normal((5, 1000)).astype(np.float32)
    a, b = both("softmax.mlir", (5,), lambda: (
        x, np.full_like(x, np.nan), 1000, 1000))
    np.testing.assert_array_equal(a[1], b[1])


def test_matmul(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    M, N, K = 100, 70, 90
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    a, b = both("matmul.mlir", (2, 2), lambda: (
        A, B, np.full((M, N), np.nan, np.float16), M, N, K, K, N, N))
    np.testing.assert_array_equal(a[2], b[2])


def test_paged_decode(rng, monkeypatch):
    monkeypatch.setenv("QUIRE_INTERPRET", "1")
    seqs, kvh, pages = 3, 2, 40
    kc = rng.standard_normal((pages, 16, kvh, 128)).astype(np.float16)
    vc = rng.standard_normal((pages, 16, kvh, 128)).astype(np.float16)
    q = rng.standard_normal((seqs, 4 * kvh, 128)).astype(np.float16)
    bt = rng.permutation(pages)[:seqs * 12].reshape(seqs, 12).astype(np.int32)
    lens = np.array([0, 100, 190], np.int32)
    st = (16 * kvh * 128, kvh * 128, 128)
    a, b = both("paged_decode_attention.mlir", (seqs, kvh), lambda: (
        np.full_like(q, np.nan), q, kc, vc, bt, lens, 0.088, 4 * kvh, 12,
        *st))
    np.testing.assert_array_equal(a[0], b[0])


def _stats(ptx):
    return {k: len(re.findall(p, ptx)) for k, p in (
        ("v4 loads", r"ld\.global(\.nc)?\.v4"), ("mma", r"mma\.sync"),
        ("wgmma", r"wgmma\.mma_async"), ("cp.async", r"cp\.async\.cg"),
        ("local", r"\.local"), ("bar", r"bar\.sync"),
        # Contracted multiply-adds: the twins round alike (parity bench).
        ("fma", r"fma\.rn\.f32"))}


ARGS = {
    "vector_add.mlir": ("<f4", "<f4", "<f4", 3000),
    "softmax.mlir": ("<f4", "<f4", 1024, 1000),
    "matmul.mlir": ("<f2", "<f2", "<f2", 4096, 4096, 4096, 4096, 4096, 4096),
    "paged_decode_attention.mlir": ("<f2", "<f2", "<f2", "<f2", "<i4", "<i4",
                                    0.088, 32, 256, 16384, 1024, 128),
}


@pytest.mark.parametrize("name", sorted(ARGS))
def test_ptx_has_the_same_shape(name):
    hand = quire.compile(example(name), sm=90)
    fn, consts = fe.EXAMPLES[name]
    args = [FakeCudaArray((1 << 20,), a) if isinstance(a, str) else a
            for a in ARGS[name]]
    mine = fn.warmup(*args, sm=90, **consts)
    assert _stats(mine.asm["ptx"]) == _stats(hand.ptx)
    assert mine.shared == hand.shared_bytes
