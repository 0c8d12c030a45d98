#!/usr/bin/env python3
"""Differential tests of quire-run against NumPy float64 references.

Each case writes random inputs as .npy, runs a kernel in quire-run with its
outputs poisoned (NaN), and compares: every output element must have been
written, and must match the reference to the stated tolerance. One line per
case, ending in "ok", goes to stdout for FileCheck; any mismatch exits 1.

  differential.py CASE --quire-run PATH --source KERNEL.mlir --tmp DIR

CASE is vector_add, softmax, paged_decode_attention, matmul or paged_load.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np


class Mismatch(Exception):
    pass


def run(args, source, grid, specs, kernel=None):
    cmd = [args.quire_run, source, "--grid", ",".join(map(str, grid))]
    if kernel:
        cmd += ["--kernel", kernel]
    for spec in specs:
        cmd += ["--arg", spec]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Mismatch("quire-run failed (%d): %s\n%s" %
                       (proc.returncode, " ".join(cmd), proc.stderr))


def save(args, name, array):
    path = os.path.join(args.tmp, name + ".npy")
    np.save(path, array)
    return path


def check_written(name, out):
    bad = np.isnan(out.astype(np.float64))
    if bad.any():
        raise Mismatch("%s: %d elements never written, first at %s" %
                       (name, bad.sum(), np.argwhere(bad)[0].tolist()))


def rel_err(out, ref):
    """max |out - ref| / max |ref| (or the absolute error when ref is 0)."""
    out = out.astype(np.float64)
    scale = np.abs(ref).max() if ref.size else 0.0
    err = np.abs(out - ref).max() if ref.size else 0.0
    return err / scale if scale > 0 else err


def case_vector_add(args, rng):
    for n in [1, 1025, 3000]:
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        out = os.path.join(args.tmp, "out.npy")
        # Buffers hold exactly n elements: masked-off lanes of the last
        # program lie past the end and must not be reported.
        run(args, args.source, [(n + 1023) // 1024, 1, 1],
            ["in:" + save(args, "x", x), "in:" + save(args, "y", y),
             "out:%s:f32:%d" % (out, n), "i32:%d" % n])
        o = np.load(out)
        check_written("vector_add", o)
        # f32 + f32 rounded once: exactly NumPy's float32 sum.
        if not np.array_equal(o, x + y):
            raise Mismatch("vector_add n=%d differs from x + y" % n)
        print("vector_add n=%d grid=%d: exact ok" % (n, (n + 1023) // 1024))


def case_softmax(args, rng):
    for rows, n in [(3, 1), (5, 777), (2, 1024)]:
        stride = n + 3  # padded rows: columns n.. are garbage, never read
        x = (rng.standard_normal((rows, stride)) * 4).astype(np.float32)
        x[:, n:] = 1e30
        out = os.path.join(args.tmp, "out.npy")
        run(args, args.source, [rows, 1, 1],
            ["in:" + save(args, "x", x), "out:%s:f32:%dx%d" % (out, rows, stride),
             "i32:%d" % stride, "i32:%d" % n])
        o = np.load(out)
        check_written("softmax", o[:, :n])
        if not np.isnan(o[:, n:]).all():
            raise Mismatch("softmax wrote the padding columns")
        xd = x[:, :n].astype(np.float64)
        e = np.exp(xd - xd.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        err = rel_err(o[:, :n], ref)
        if err > 1e-5:
            raise Mismatch("softmax rows=%d n=%d: rel err %g" % (rows, n, err))
        print("softmax rows=%d n=%d: rel_err<1e-5 ok" % (rows, n))


def make_block_tables(rng, seq_lens, page, num_blocks_extra=3):
    """Pages of all sequences, shuffled over the cache; unused table entries
    point far past the cache so that reading one is an out-of-bounds error."""
    pages = [-(-int(l) // page) for l in seq_lens]
    max_pages = max(max(pages), 1)
    num_blocks = sum(pages) + num_blocks_extra
    perm = rng.permutation(num_blocks)
    tables = np.full((len(seq_lens), max_pages), 1 << 30, dtype=np.int32)
    pos = 0
    for s, p in enumerate(pages):
        tables[s, :p] = perm[pos:pos + p]
        pos += p
    return tables, num_blocks, max_pages


def case_paged_decode_attention(args, rng):
    page, d, kv_heads, group = 16, 128, 2, 4
    q_heads = kv_heads * group
    seq_lens = np.array([0, 1, 15, 16, 17, 63, 64, 65, 100, 127, 128, 129,
                         200, 255, 299, 313], dtype=np.int32)
    num_seqs = len(seq_lens)
    tables, num_blocks, max_pages = make_block_tables(rng, seq_lens, page)
    cache_shape = (num_blocks, page, kv_heads, d)
    k = rng.standard_normal(cache_shape).astype(np.float16)
    v = rng.standard_normal(cache_shape).astype(np.float16)
    q = rng.standard_normal((num_seqs, q_heads, d)).astype(np.float16)
    scale = 1.0 / math.sqrt(d)
    out = os.path.join(args.tmp, "out.npy")
    page_stride, token_stride, head_stride = page * kv_heads * d, kv_heads * d, d
    run(args, args.source, [num_seqs, kv_heads, 1],
        ["out:%s:f16:%dx%dx%d" % (out, num_seqs, q_heads, d),
         "in:" + save(args, "q", q), "in:" + save(args, "k", k),
         "in:" + save(args, "v", v), "in:" + save(args, "tables", tables),
         "in:" + save(args, "lens", seq_lens), "f32:%r" % scale,
         "i32:%d" % q_heads, "i32:%d" % max_pages, "i64:%d" % page_stride,
         "i64:%d" % token_stride, "i64:%d" % head_stride])
    o = np.load(out)
    check_written("paged_decode_attention", o)
    worst = 0.0
    # f32 -> float64 exactly; scale is passed as the f32 nearest to 1/sqrt(d).
    scale64 = float(np.float32(scale))
    for s in range(num_seqs):
        length = int(seq_lens[s])
        toks = np.arange(length)
        blocks = tables[s, toks // page]
        for h in range(q_heads):
            kv = h // group
            K = k[blocks, toks % page, kv, :].astype(np.float64)
            V = v[blocks, toks % page, kv, :].astype(np.float64)
            if length == 0:
                ref = np.zeros(d)
            else:
                sc = scale64 * (K @ q[s, h].astype(np.float64))
                p = np.exp(sc - sc.max())
                ref = (p / p.sum()) @ V
            err = rel_err(o[s, h], ref)
            if length == 0 and np.any(o[s, h] != 0):
                raise Mismatch("seq %d (empty) head %d is not zero" % (s, h))
            if err >= 1e-3:
                raise Mismatch("seq %d (len %d) head %d: rel err %g" %
                               (s, length, h, err))
            worst = max(worst, err)
    print("paged_decode_attention seqs=%d q_heads=%d kv_heads=%d: "
          "rel_err<1e-3 ok" % (num_seqs, q_heads, kv_heads))
    if args.verbose:
        print("worst rel err %g" % worst, file=sys.stderr)


def case_matmul(args, rng):
    """C = A @ B in f16 with ragged M, N, K (not multiples of the 64x64x32
    tiles) and padded leading dimensions; the padding of C must stay NaN."""
    for m, n, k in [(100, 70, 45), (64, 64, 32), (1, 130, 7)]:
        lda, ldb, ldc = k + 3, n + 5, n + 2
        a = rng.standard_normal((m, lda)).astype(np.float16)
        b = rng.standard_normal((k, ldb)).astype(np.float16)
        out = os.path.join(args.tmp, "out.npy")
        grid = [-(-m // 64), -(-n // 64), 1]
        run(args, args.source, grid,
            ["in:" + save(args, "a", a), "in:" + save(args, "b", b),
             "out:%s:f16:%dx%d" % (out, m, ldc)] +
            ["i32:%d" % v for v in (m, n, k, lda, ldb, ldc)])
        o = np.load(out)
        check_written("matmul", o[:, :n])
        if not np.isnan(o[:, n:].astype(np.float64)).all():
            raise Mismatch("matmul wrote the padding columns of C")
        ref = a[:, :k].astype(np.float64) @ b[:, :n].astype(np.float64)
        err = rel_err(o[:, :n], ref)
        if err >= 1e-3:
            raise Mismatch("matmul %dx%dx%d: rel err %g" % (m, n, k, err))
        print("matmul M=%d N=%d K=%d: rel_err<1e-3 ok" % (m, n, k))


def case_paged_load(args, rng):
    """The paged_load-only kernels of paged-load-page-sizes.mlir: program
    (s, tile, h) stores rows tile*32 .. tile*32+31 of sequence s, head h."""
    block_n, d, heads = 32, 16, 2
    seq_lens = np.array([0, 1, 7, 8, 9, 31, 32, 33, 64, 65, 100],
                        dtype=np.int32)
    tiles = -(-int(seq_lens.max()) // block_n)
    for page in [8, 16, 64]:
        tables, num_blocks, max_pages = make_block_tables(rng, seq_lens, page)
        # Padded pages: page_stride is not page * token_stride.
        token_stride, head_stride = heads * d, d
        page_stride = page * token_stride + 8
        cache = rng.standard_normal(num_blocks * page_stride).astype(np.float16)
        out = os.path.join(args.tmp, "out.npy")
        rows = tiles * block_n
        run(args, args.source, [len(seq_lens), tiles, heads],
            ["out:%s:f16:%dx%dx%dx%d" % (out, len(seq_lens), rows, heads, d),
             "in:" + save(args, "cache", cache),
             "in:" + save(args, "tables", tables),
             "in:" + save(args, "lens", seq_lens), "i32:%d" % max_pages,
             "i64:%d" % page_stride, "i64:%d" % token_stride,
             "i64:%d" % head_stride], kernel="paged_load_p%d" % page)
        o = np.load(out)
        check_written("paged_load", o)
        ref = np.zeros_like(o)
        for s, length in enumerate(seq_lens):
            for t in range(length):
                base = (int(tables[s, t // page]) * page_stride +
                        (t % page) * token_stride)
                for h in range(heads):
                    start = base + h * head_stride
                    ref[s, t, h] = cache[start:start + d]
        if not np.array_equal(o, ref):
            bad = np.argwhere(o != ref)[0].tolist()
            raise Mismatch("paged_load page=%d differs first at %s" %
                           (page, bad))
        print("paged_load page_size=%d: exact ok" % page)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("case")
    parser.add_argument("--quire-run", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    cases = {
        "vector_add": case_vector_add,
        "softmax": case_softmax,
        "paged_decode_attention": case_paged_decode_attention,
        "paged_load": case_paged_load,
        "matmul": case_matmul,
    }
    try:
        cases[args.case](args, rng)
    except Mismatch as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
