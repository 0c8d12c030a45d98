"""The read-only bandwidth ceiling: a Triton kernel that streams a buffer
once (each program sums BLOCK int64 words per step over its share and
writes one partial), at a few tile shapes; the best is the ceiling."""

import torch
import triton
import triton.language as tl


@triton.jit
def _stream_read(x_ptr, part_ptr, n, per_program, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = pid.to(tl.int64) * per_program
    acc = tl.zeros([BLOCK], tl.int64)
    offs = tl.arange(0, BLOCK)
    for i in range(start, start + per_program, BLOCK):
        idx = i + offs
        acc += tl.load(x_ptr + idx, mask=idx < n, other=0)
    tl.store(part_ptr + pid, tl.sum(acc, 0))


def stream_read_configs(words):
    """[(description, fn)]: `fn()` reads every int64 of `words` once."""
    n = words.numel()
    sms = torch.cuda.get_device_properties(words.device).multi_processor_count
    configs = []
    for block, warps, waves in ((1024, 4, 4), (2048, 8, 4), (4096, 8, 2), (2048, 4, 8)):
        programs = sms * waves
        per_program = triton.cdiv(triton.cdiv(n, programs), block) * block
        programs = triton.cdiv(n, per_program)
        part = torch.empty(programs, dtype=torch.int64, device=words.device)
        fn = (lambda p=programs, pp=per_program, b=block, w=warps, o=part:
              _stream_read[(p,)](words, o, n, pp, BLOCK=b, num_warps=w))
        configs.append((f"BLOCK {block}, {warps} warps, {programs} programs", fn))
    return configs
