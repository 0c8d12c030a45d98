"""The read-only bandwidth ceiling: a Triton kernel that streams a buffer
once and writes one partial sum per program, at several tile shapes,
programs per SM and pipeline depths; the best is the ceiling.

Two orders of the reads:
- contiguous shares: program p sums words [p * share, (p + 1) * share),
  BLOCK int64 words a step;
- interleaved (grid-stride): step i of program p reads block
  (i * programs + p), so the programs read one moving window of the buffer
  together, as the decode kernels' programs of one sequence read adjacent
  pages, and DRAM sees long runs of consecutive lines.

The bytes a thread has in flight bound what a read reaches (Little's law),
so the shapes range from 64 to 512 bytes per thread per step, with and
without Triton's software pipelining of the loop's loads (num_stages) and
with loads cached in L2 only (`.cg`, as cp.async.cg reads; ptxas takes no
evict-first hint beside it)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _words(x_ptr, idx, n, STREAMING: tl.constexpr):
    """The int64 words at `idx` (0 past n); L2 only with STREAMING."""
    if STREAMING:
        w = tl.load(x_ptr + idx, mask=idx < n, other=0, cache_modifier=".cg")
    else:
        w = tl.load(x_ptr + idx, mask=idx < n, other=0)
    return w


@triton.jit
def _stream_read(x_ptr, part_ptr, n, per_program, BLOCK: tl.constexpr,
                 STREAMING: tl.constexpr):
    pid = tl.program_id(0)
    start = pid.to(tl.int64) * per_program
    acc = tl.zeros([BLOCK], tl.int64)
    offs = tl.arange(0, BLOCK)
    for i in range(start, start + per_program, BLOCK):
        acc += _words(x_ptr, i + offs, n, STREAMING)
    tl.store(part_ptr + pid, tl.sum(acc, 0))


@triton.jit
def _stream_read_interleaved(x_ptr, part_ptr, n, BLOCK: tl.constexpr,
                             STREAMING: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    acc = tl.zeros([BLOCK], tl.int64)
    offs = tl.arange(0, BLOCK)
    for i in range(pid.to(tl.int64) * BLOCK, n, step):
        acc += _words(x_ptr, i + offs, n, STREAMING)
    tl.store(part_ptr + pid, tl.sum(acc, 0))


# (BLOCK int64 words a step, warps, programs per SM, stages)
CONTIGUOUS = ((1024, 4, 4, 1), (2048, 8, 4, 1), (4096, 8, 2, 1), (2048, 4, 8, 1),
              (4096, 4, 4, 1), (8192, 8, 2, 1), (8192, 8, 4, 1), (16384, 16, 1, 1),
              (2048, 4, 4, 3), (4096, 8, 2, 3), (8192, 8, 2, 3), (4096, 4, 4, 4))
INTERLEAVED = ((1024, 4, 8, 1), (2048, 4, 8, 1), (2048, 8, 4, 1), (4096, 8, 4, 1),
               (4096, 4, 4, 1), (8192, 8, 2, 1), (2048, 4, 8, 3), (4096, 8, 4, 3))


def stream_read_configs(words):
    """[(description, fn)]: `fn()` reads every int64 of `words` once."""
    n = words.numel()
    sms = torch.cuda.get_device_properties(words.device).multi_processor_count
    configs = []
    for streaming in (False, True):
        kind = ", .cg" if streaming else ""
        for block, warps, waves, stages in CONTIGUOUS:
            programs = sms * waves
            per_program = triton.cdiv(triton.cdiv(n, programs), block) * block
            programs = triton.cdiv(n, per_program)
            part = torch.empty(programs, dtype=torch.int64, device=words.device)
            fn = (lambda p=programs, pp=per_program, b=block, w=warps, s=stages,
                  o=part, c=streaming:
                  _stream_read[(p,)](words, o, n, pp, BLOCK=b, STREAMING=c,
                                     num_warps=w, num_stages=s))
            configs.append((f"contiguous, BLOCK {block}, {warps} warps, "
                            f"{programs} programs, {stages} stages{kind}", fn))
        for block, warps, waves, stages in INTERLEAVED:
            programs = min(sms * waves, triton.cdiv(n, block))
            part = torch.empty(programs, dtype=torch.int64, device=words.device)
            fn = (lambda p=programs, b=block, w=warps, s=stages, o=part,
                  c=streaming:
                  _stream_read_interleaved[(p,)](words, o, n, BLOCK=b,
                                                 STREAMING=c, num_warps=w,
                                                 num_stages=s))
            configs.append((f"interleaved, BLOCK {block}, {warps} warps, "
                            f"{programs} programs, {stages} stages{kind}", fn))
    return configs
