"""The paged prefill example (examples/paged_prefill_attention.mlir):
compiles for sm_80/sm_90 with 4 and 8 warps onto tensor cores, and computes
prefix + causal chunk attention exactly (interpreter vs a float64 numpy
reference, ragged chunks, tiles crossing pages, an empty context)."""

import math
import os

import pytest

import quire

np = pytest.importorskip("numpy")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "paged_prefill_attention.mlir")


@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_compiles_onto_tensor_cores(sm, num_warps):
    k = quire.compile(EXAMPLE, sm=sm, num_warps=num_warps)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in k.ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in k.ptx
    assert k.metadata["threads"] == 32 * num_warps


def reference(q, k_new, v_new, k_cache, v_cache, bt, qstart, ctx, scale):
    out = np.zeros(q.shape)
    group = q.shape[1] // k_new.shape[1]
    P = k_cache.shape[1]
    for s in range(len(ctx)):
        a, b = qstart[s], qstart[s + 1]
        t = np.arange(ctx[s])
        kc = k_cache[bt[s, t // P], t % P].astype(np.float64)
        vc = v_cache[bt[s, t // P], t % P].astype(np.float64)
        kk = np.concatenate([kc, k_new[a:b].astype(np.float64)])
        vv = np.concatenate([vc, v_new[a:b].astype(np.float64)])
        for i in range(b - a):
            n = ctx[s] + i + 1  # the context and new tokens 0..i
            for h in range(q.shape[1]):
                sc = kk[:n, h // group] @ q[a + i, h].astype(np.float64) * scale
                p = np.exp(sc - sc.max())
                out[a + i, h] = (p / p.sum()) @ vv[:n, h // group]
    return out


def test_interpreter_matches_float64():
    rng = np.random.default_rng(3)
    D, P, Hq, Hkv = 128, 16, 2, 1
    ctx = [40, 0]          # context crossing pages; an empty one
    qlens = [70, 3]        # a chunk over two query blocks; a short one
    qstart = np.array([0, 70, 73], dtype=np.int32)
    T = 73
    pages = [(c + P - 1) // P for c in ctx]
    nb = sum(pages) + 2
    bt = np.zeros((2, max(pages)), dtype=np.int32)
    perm = rng.permutation(nb)
    bt[0, : pages[0]] = perm[: pages[0]]
    f16 = np.float16
    q = rng.standard_normal((T, Hq, D)).astype(f16)
    k_new = rng.standard_normal((T, Hkv, D)).astype(f16)
    v_new = rng.standard_normal((T, Hkv, D)).astype(f16)
    k_cache = rng.standard_normal((nb, P, Hkv, D)).astype(f16)
    v_cache = rng.standard_normal((nb, P, Hkv, D)).astype(f16)
    ctx_a = np.array(ctx, dtype=np.int32)
    out = np.full((T, Hq, D), np.nan, dtype=f16)
    scale = 1.0 / math.sqrt(D)
    sk, sp, sh = P * Hkv * D, Hkv * D, D
    quire.interpret(EXAMPLE, (2, Hq, 2), out, q, k_new, v_new, k_cache, v_cache,
                    bt, qstart, ctx_a, scale, Hq, Hkv, bt.shape[1], sk, sp, sh)
    ref = reference(q, k_new, v_new, k_cache, v_cache, bt, qstart, ctx, scale)
    err = np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref)
    assert err < 2e-3, err
