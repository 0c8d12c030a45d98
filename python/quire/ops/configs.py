"""Tile configurations of the attention kernels and the choices made from
shapes: tile padding, tokens per step and warps, the decode kernel's form,
the split count, and which kernels a unified_attention call launches.

Everything here depends on shapes and the device's SM count only, never on
tensor values, so every launch it plans can be captured in a CUDA graph.
The numbers behind the defaults are in docs/performance.md."""

# The most splits the combine kernel merges (its tile height).
MAX_SPLITS = 32

# A plan merges split-KV decode's splits in the split kernel (FUSED: one
# launch, no combine kernel) up to this many splits: at 2-8 splits the GPU
# time equals the two launches' within 0.3%; at 32 (a batch-1 decode) the
# last split's merge of every partial takes 2 us more than the combine
# kernel's, a CTA per head (docs/performance.md, "Decode: the host path").
FUSED_MAX_SPLITS = 8


def next_pow2(n):
    return 1 << max(0, n - 1).bit_length()


def tile_rows(group):
    """Rows of the decode kernel's query tile: the GQA group padded to a
    power of two, at least the 16 rows of an mma.sync tile."""
    return max(16, next_pow2(group))


def tile_cols(group):
    """Columns of the transposed decode kernel's query tile: the GQA group
    padded to a power of two, at least the 8 columns (the N) of an mma.sync
    tile."""
    return max(8, next_pow2(group))


def tile_width(head_dim):
    """Columns of the K/V tiles, and of a partial-result row: the head dim
    padded to a power of two, at least 16. The paged loads carry
    `cols = head_dim` when it is narrower, so the padding is never read."""
    return max(16, next_pow2(head_dim))


def decode_config(head_dim, group, fp8=False):
    """(block_n, num_warps) of the split kernel for a head dimension and GQA
    group. A GQA group that fits one 16-row tile (or the transposed form's 8
    columns) runs 4 warps on 32-token tiles (64 for head dims up to 64):
    with the split count for about 4 programs per SM (num_splits_for) each
    program streams a long run of its sequence, most batches need one split
    and no combine, and the rows read at 96-100% of the streaming-read
    ceiling (docs/performance.md, "Decode: tile and split"). fp8 caches take
    the same tiles (with the row form and three stages: decode_transposed,
    decode_stages; docs/performance.md, "fp8 KV caches"). Groups padded
    past 16 rows keep one warp per 16 rows on 16-token tiles (32 tokens and
    at least 4 warps for head dim 256), the configuration their kernels were
    measured with (docs/performance.md, "Decode: split-KV over one-warp
    programs")."""
    rows = tile_rows(group)
    if rows > 16:
        if tile_width(head_dim) <= 128:
            return 16, rows // 16
        return 32, max(4, rows // 16)
    return (64 if tile_width(head_dim) <= 64 else 32), 4


def decode_transposed(head_dim, group, fp8=False):
    """Whether the split kernel runs its dots transposed (the GQA group as
    the N of the MMAs, padded to 8 instead of 16 rows): for GQA groups of 2
    to 8, where it halves the accumulator and the MMAs. It is the faster
    form on one-warp programs and as fast on the 4-warp default
    (docs/performance.md, "Decode: the transposed form", "Decode: tile and
    split"); MHA and larger groups keep the row form, and so do fp8 caches,
    whose 4-warp kernel reads 3-4% faster in it (docs/performance.md, "fp8
    KV caches")."""
    return not fp8 and 2 <= group <= 8 and tile_width(head_dim) <= 128


# The most tokens one 4-warp split program reads (num_splits_for).
SPLIT_TOKENS = 4096


def num_splits_for(num_seqs, num_kv_heads, max_tokens, block_n, sms=132,
                   fp8=False, num_warps=1, resident=None, longest_first=False):
    """Splits of each sequence, at least 4 tiles of block_n tokens per
    split, at most MAX_SPLITS: for 4-warp programs (decode_config's default)
    about 4 programs per SM, rounded to the nearest count, so a batch of
    sequence-heads that already fills the machine runs one split, but no
    more than one wave of the `resident` programs an SM holds at once
    (decode_resident; None: no limit) where that is fewer than 4, and
    enough that no split is longer than SPLIT_TOKENS (fp8 caches too)
    unless the programs take the sequences `longest_first`; for
    one-warp programs enough for about 8 per SM, and on fp8 caches at most 8
    per SM (a second wave of a few programs costs as much as the first).
    Depends on the shapes only (not on
    seq_lens), so a launch can be graph-captured. The numbers behind it:
    docs/performance.md, "Decode: tile and split"."""
    programs = max(1, num_seqs * num_kv_heads)
    if num_warps >= 4:
        want = (8 * sms + programs) // (2 * programs)   # round(4 sms / p)
        if resident is not None and resident < 4:
            # A second wave of a few programs costs as much as the first.
            want = min(want, max(1, resident * sms // programs))
        # No program longer than SPLIT_TOKENS: in a batch of unequal
        # lengths the longest sequences' programs are the tail, unless
        # they run first.
        if not longest_first:
            want = max(want, -(-max_tokens // SPLIT_TOKENS))
    elif fp8:
        want = 8 * sms // programs
    else:
        want = -(-8 * sms // programs)
    most = max(1, -(-max_tokens // (4 * block_n)))
    return max(1, min(want, most, MAX_SPLITS))


# Shared memory of an SM where the device is not asked (sm_90: 228 KiB),
# and what the hardware reserves per resident program.
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED = 1024


def decode_shared_bytes(head_dim, group, block_n, fp8, transposed, stages):
    """Shared memory of one split program, estimated from its tiles: the
    K and V staging (stages x block_n x tile width, one byte an element on
    fp8 caches, else two) and the f16 query tile, plus 256 bytes of row
    statistics (python/test/test_ops_ptx.py holds it to the compiled
    kernels')."""
    width = tile_width(head_dim)
    rows = tile_cols(group) if transposed else tile_rows(group)
    return (stages * 2 * block_n * width * (1 if fp8 else 2) +
            rows * width * 2 + 256)


def decode_resident(head_dim, group, block_n, fp8, transposed, stages,
                    shared_per_sm=SHARED_PER_SM):
    """Split programs one SM holds at once by shared memory: 6 for the
    head-dim-128 default (registers hold it there too), 3 for head dim
    256, whose programs stage twice the bytes."""
    need = decode_shared_bytes(head_dim, group, block_n, fp8, transposed,
                               stages) + SHARED_RESERVED
    return max(1, shared_per_sm // need)


# The split kernel's grid order: (KV heads, sequences, splits) when True,
# (sequences, KV heads, splits) when False (decode_kernels.py, HEADS_FIRST).
# The heads of a sequence then read each page side by side: 2-5% on fp8
# caches (128-byte rows a head), within 0.5% on fp16 (docs/performance.md,
# "fp8 KV caches").
DECODE_HEADS_FIRST = True


# The most sequences the split kernel orders by length (each program
# compares every pair: SEQS_PAD^2).
LONGEST_FIRST_SEQS = 256


def decode_longest_first(num_seqs, num_kv_heads, max_tokens, block_n,
                         sms=132, fp8=False, num_warps=1, resident=None):
    """Whether the split kernel's programs take the sequences longest
    first (decode_kernels.py, SEQS_PAD): where num_splits_for would add
    splits only so that no program reads more than SPLIT_TOKENS (the tail
    of a ragged batch), for 2 to LONGEST_FIRST_SEQS sequences. Ordering the
    programs removes that tail without the extra splits and their combine;
    elsewhere the ranking's registers (96 instead of 80 on the head-dim-128
    default) are not paid for (docs/performance.md, "Decode: longest
    first"). Arguments as num_splits_for's; shapes only."""
    if decode_seqs_pad(num_seqs, True) is None:
        return False
    args = (num_seqs, num_kv_heads, max_tokens, block_n, sms, fp8, num_warps,
            resident)
    return num_splits_for(*args, longest_first=True) < num_splits_for(*args)


def decode_splits(num_seqs, split_seqs, num_kv_heads, max_tokens, head_dim,
                  group, block_n, num_warps, fp8, transposed, stages,
                  sms=132, shared_per_sm=SHARED_PER_SM, longest_first=None):
    """(num_splits, longest_first) of the split kernel over a batch of
    num_seqs sequences, the split count sized for split_seqs of them
    (unified_attention's possible decodes): longest first as asked, or by
    decode_longest_first when None, and never where the kernel does not
    rank (decode_seqs_pad); the split count num_splits_for's for that
    order, one wave of what an SM holds at `stages` (None:
    decode_stages)."""
    if decode_seqs_pad(num_seqs, True) is None:
        longest_first = False
    resident = decode_resident(head_dim, group, block_n, fp8, transposed,
                               stages or decode_stages(fp8), shared_per_sm)
    args = (split_seqs, num_kv_heads, max_tokens, block_n, sms, fp8,
            num_warps, resident)
    if longest_first is None:
        longest_first = decode_longest_first(*args)
    return num_splits_for(*args, longest_first=longest_first), longest_first


def decode_one_split_tile(num_seqs, num_kv_heads, num_splits, block_n,
                          num_warps, head_dim, fp8, sms=132):
    """The tokens per tile of one split where decode_splits chose two only
    to reach about 4 programs per SM, else None: the default 4-warp,
    32-token program over head dim 128 (fp16/bf16) with a program per SM
    or more at one split (Llama-70B, 32 x 64/8 heads: 256 programs). One
    program on 64-token tiles keeps as many bytes in flight per SM as two
    on 32, and the batch needs no combine kernel (docs/performance.md,
    "Paged decode attention"). Shapes only."""
    if (num_splits == 2 and block_n == 32 and num_warps == 4 and not fp8
            and tile_width(head_dim) == 128
            and num_seqs * num_kv_heads >= sms):
        return 64
    return None


def decode_seqs_pad(num_seqs, longest_first):
    """The split kernel's SEQS_PAD: the sequences padded to a power of two
    where its programs take them `longest_first`, else None; one sequence,
    or more than LONGEST_FIRST_SEQS, runs in order."""
    if longest_first and 1 < num_seqs <= LONGEST_FIRST_SEQS:
        return next_pow2(num_seqs)
    return None


def decode_stages(fp8):
    """cp.async stages of the split kernel: 3 for fp8 caches, whose tiles
    are half the bytes (two stages leave too little in flight), else 2."""
    return 3 if fp8 else 2


def tokens_per_split(max_tokens, num_splits, block_n):
    """(tokens per split, splits): the partition of max_tokens into
    num_splits runs of whole block_n tiles, dropping splits that would start
    past max_tokens. The last split also takes any tokens beyond, so an
    understated max_tokens costs time, never tokens."""
    tps = -(-max(1, -(-max_tokens // num_splits)) // block_n) * block_n
    return tps, max(1, min(num_splits, -(-max_tokens // tps)))


def prefill_config(head_dim, sm=90, fp8=False, wgmma=True, checked=False):
    """(block_m, block_n, num_warps) of the prefill kernel for a head
    dimension on compute capability `sm` (`fp8`: an fp8 cache; `wgmma`:
    the dots on wgmma, sm_90; `checked`: checked mode, whose loads are not
    staged): 128 query rows on 8 warps (two wgmma warpgroups). Keys per
    step: 128 for tile width 128 on sm_90 wgmma with an fp16/bf16 cache,
    staged (254 registers, no spills; 166 KB of shared memory, which only
    sm_90 has), else 64; head dim 256 takes 32, the largest tile that does
    not spill. fp8 caches, mma.sync and checked mode spill more at 128
    keys (docs/performance.md, "Prefill tiles")."""
    width = tile_width(head_dim)
    if width == 128 and sm == 90 and wgmma and not fp8 and not checked:
        return (128, 128, 8)
    return (128, 64, 8) if width <= 128 else (128, 32, 8)


def prefill_warp_specialize(tiles, sm, fp8, wgmma, checked, feature_flags):
    """Whether the prefill kernel compiles with producer warps by default
    (quire-warp-specialize with a producer warpgroup: the cp.async copies
    of K and V issued by a warpgroup of their own, the consumers released
    from the loop's CTA barrier): for the 128 x 128 tiles on 8 warps of
    sm_90 wgmma over an fp16/bf16 cache (`tiles`: (block_m, block_n,
    num_warps)), unchecked, without the optional features
    (`feature_flags`: features.Features.flags), the configuration it was
    timed and checked in (docs/performance.md, "Producer warps for the
    paged K/V copies" and "Paged prefill attention")."""
    return (tuple(tiles) == (128, 128, 8) and sm == 90 and wgmma and
            not fp8 and not checked and not any(feature_flags.values()))


def prefill_overlap_softmax(tiles, sm, producer_warpgroup, two_loops,
                            page_size):
    """Whether the prefill kernel compiles with quire-overlap-softmax at 3
    stages by default: the 128 x 128 tiles on 8 warps of sm_90 with the
    producer warpgroup (`tiles`: (block_m, block_n, num_warps)), the
    chunk's K/V read from the cache in the context's loop (not
    `two_loops`: not from key/value, nor in a loop of their own), pages of
    at most 16 tokens: 2-16% faster on most rows of the benchmark, 12%
    slower with pages of 128 tokens (docs/performance.md, "The softmax
    overlap on the cache form"). prefill_launch also keeps it off for the
    caches through TMA, quire-pingpong, early dots and a staging depth
    other than 3 asked for, and gives the form the consumer warpgroups'
    turns (pingpong with the overlap: the turns take both dots)."""
    return (tuple(tiles) == (128, 128, 8) and sm == 90 and
            producer_warpgroup and not two_loops and page_size <= 16)


def prefill_grid(num_tokens, num_seqs, max_q, block_m):
    """(programs per query head, flat) of the prefill kernel: one per
    (sequence, block of block_m chunk tokens up to the longest chunk
    max_q), or the flat grid of num_tokens // block_m + num_seqs programs
    (prefill_kernel.py, FLAT) where that is fewer: a mixed batch of many
    one-token chunks and a few long ones would otherwise launch a row of
    idle programs for every decode sequence. Shapes only, so a launch can
    be graph-captured."""
    rect = num_seqs * max(1, -(-max_q // block_m))
    flat = num_tokens // block_m + num_seqs
    return (flat, True) if flat < rect else (rect, False)


def window_tokens(max_tokens, window_left, block_n):
    """The most keys one query of a sequence of at most max_tokens reads
    with a left window (-1: none): the window and the query, and the part
    of its first tile before the window (tiles start at a multiple of
    block_n)."""
    if window_left < 0:
        return max_tokens
    return min(max_tokens, window_left + block_n)


def possible_decodes(num_tokens, num_seqs, max_seqlen_q):
    """The most sequences of a batch that can have at most one query token,
    from its shapes: num_seqs sequences of at most max_seqlen_q tokens
    hold num_tokens, so at most (num_seqs * max_seqlen_q - num_tokens) /
    (max_seqlen_q - 1) of them are that short."""
    if max_seqlen_q <= 1:
        return num_seqs
    return max(0, min(num_seqs, (num_seqs * max_seqlen_q - num_tokens) //
                      (max_seqlen_q - 1)))


def unified_plan(num_tokens, num_seqs, max_seqlen_q):
    """Which kernels a unified_attention call launches, from shapes only:

      "decode"   max_seqlen_q <= 1: the split-KV decode kernel (and its
                 combine) for every sequence, GQA packed;
      "prefill"  no sequence can have one query token (possible_decodes is
                 0): the query-tiled prefill kernel for every sequence;
      "mixed"    both: the decode kernel takes the sequences with one query
                 token, the prefill kernel the longer chunks (each
                 kernel's programs of the other kind return at once).
    """
    if max_seqlen_q <= 1:
        return "decode"
    if possible_decodes(num_tokens, num_seqs, max_seqlen_q) == 0:
        return "prefill"
    return "mixed"
