"""The read-only bandwidth ceiling: a Triton kernel that streams a buffer
once (each program sums BLOCK int64 words per step over its share and
writes one partial), at several tile shapes, programs per SM and pipeline
depths; the best is the ceiling. The bytes a thread has in flight bound
what a read reaches (Little's law), so the shapes range from 64 to 512
bytes per thread per step, with and without Triton's software pipelining
of the loop's loads (num_stages)."""

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
    for block, warps, waves, stages in (
            (1024, 4, 4, 1), (2048, 8, 4, 1), (4096, 8, 2, 1), (2048, 4, 8, 1),
            (4096, 4, 4, 1), (8192, 8, 2, 1), (8192, 8, 4, 1), (16384, 16, 1, 1),
            (2048, 4, 4, 3), (4096, 8, 2, 3), (8192, 8, 2, 3), (4096, 4, 4, 4)):
        programs = sms * waves
        per_program = triton.cdiv(triton.cdiv(n, programs), block) * block
        programs = triton.cdiv(n, per_program)
        part = torch.empty(programs, dtype=torch.int64, device=words.device)
        fn = (lambda p=programs, pp=per_program, b=block, w=warps, s=stages, o=part:
              _stream_read[(p,)](words, o, n, pp, BLOCK=b, num_warps=w, num_stages=s))
        configs.append((f"BLOCK {block}, {warps} warps, {programs} programs, "
                        f"{stages} stages", fn))
    return configs
