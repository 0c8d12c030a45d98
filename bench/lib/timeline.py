"""SM-clock timestamps at a kernel's synchronization points, from its PTX
(no torch): where a warpgroup's iteration spends its cycles.

`instrument(ptx, kinds)` adds a pointer parameter to the kernel's entry and,
after every instruction of the chosen kinds (PROBES), a store of the SM's
32-bit cycle counter (`%clock`) and the probe's number by the first thread
of each warpgroup of the first `ctas` CTAs, into that warpgroup's slice of
the buffer (`max_records` records of two u32 words). `records(words, ...)`
reads the buffer back and `transitions(...)` counts the cycles between each
warpgroup's consecutive probes. The probes add a few instructions and three
live registers, and a clock read orders the instructions around it for
ptxas: the cycles they report are the instrumented kernel's, whose
schedule ptxas may have changed (check its registers and spills).
"""

import re
import statistics

# kind: (what it marks, the text inside an inline-asm block or a PTX line
# that the probe follows)
PROBES = {
    "ready": ("a stage's copies landed (consumers' mbarrier wait)",
              re.compile(r"^wait_tma:")),
    "free": ("a stage released (the producer's acquire)",
             re.compile(r"^wait_acquire:")),
    "filled": ("a fill's copies issued (cp.async arrive)",
               re.compile(r"cp\.async\.mbarrier\.arrive")),
    "turn": ("the warpgroup's turn (named barrier)",
             re.compile(r"^bar\.sync id,")),
    "passed": ("the turn passed on", re.compile(r"^bar\.arrive id,")),
    "issue": ("a wgmma chain issued (wgmma.fence)",
              re.compile(r"^wgmma\.fence")),
    "wait1": ("all but the newest wgmma group retired",
              re.compile(r"^wgmma\.wait_group\.sync\.aligned 1")),
    "wait0": ("every wgmma group retired",
              re.compile(r"^wgmma\.wait_group\.sync\.aligned 0")),
    "release": ("a stage released (consumers' mbarrier arrive)",
                re.compile(r"mbarrier\.arrive\.shared::cta\.b64 _")),
    "barrier": ("a CTA or named barrier (bar.sync N)",
                re.compile(r"^\s*bar\.sync\s+\d")),
}
# Not wait0 by default: a clock read after the wait for P V keeps ptxas
# from moving that wait up to the softmax's start, as it does otherwise
# (docs/passes.md, quire-overlap-softmax), and the prefill kernel's
# consumers then spill.
DEFAULT_KINDS = ("ready", "turn", "passed", "wait1", "free", "filled")
START = 0  # the first record of a warpgroup: (START, clock), then SMID
SMID = 1
FIRST_PROBE = 2

_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(")


def check_kinds(kinds):
    """`kinds` as a tuple, or ValueError naming the unknown ones."""
    bad = [k for k in kinds if k not in PROBES]
    if bad or not kinds:
        raise ValueError(f"unknown probe kinds {', '.join(bad) or '(none)'}"
                         f"; known: {', '.join(PROBES)}")
    return tuple(kinds)


def _store(tag, max_records, clock="%clock"):
    return ("{\n.reg .b32 %tlc;\n.reg .b64 %tla;\n.reg .pred %tlp;\n"
            f"mov.u32 %tlc, {clock};\n"
            f"setp.lt.u32 %tlp, %tlidx, {max_records};\n"
            "mul.wide.u32 %tla, %tlidx, 8;\n"
            "add.s64 %tla, %tla, %tlbase;\n"
            f"@%tlp st.global.v2.u32 [%tla], {{{tag}, %tlc}};\n"
            "add.u32 %tlidx, %tlidx, 1;\n}")


def _prologue(name, ctas, max_records, warpgroups):
    return f"""\
.reg .b64 %tlbase;
.reg .b32 %tlidx;
{{
.reg .b32 %tlt<10>;
.reg .b64 %tlq<2>;
.reg .pred %tlw, %tlon;
ld.param.u64 %tlq0, [{name}_param_timeline];
cvta.to.global.u64 %tlq0, %tlq0;
mov.u32 %tlt0, %tid.x;
and.b32 %tlt1, %tlt0, 127;
shr.u32 %tlt2, %tlt0, 7;
mov.u32 %tlt3, %nctaid.x;
mov.u32 %tlt4, %nctaid.y;
mov.u32 %tlt5, %ctaid.x;
mov.u32 %tlt6, %ctaid.y;
mov.u32 %tlt7, %ctaid.z;
mad.lo.u32 %tlt8, %tlt7, %tlt4, %tlt6;
mad.lo.u32 %tlt8, %tlt8, %tlt3, %tlt5;
setp.lt.u32 %tlw, %tlt8, {ctas};
setp.eq.and.u32 %tlon, %tlt1, 0, %tlw;
mad.lo.u32 %tlt9, %tlt8, {warpgroups}, %tlt2;
mul.wide.u32 %tlq1, %tlt9, {8 * max_records};
add.s64 %tlbase, %tlq0, %tlq1;
selp.u32 %tlidx, 0, {max_records}, %tlon;
}}
"""


def instrument(ptx, kinds=DEFAULT_KINDS, ctas=264, max_records=4096,
               warpgroups=3):
    """(PTX with the probes, [(tag, kind, line)]), `line` the 1-based line
    of the returned PTX that the probe follows. The kernel takes one more
    argument, a u32 buffer of ctas * warpgroups * max_records * 2 words."""
    kinds = check_kinds(kinds)
    lines = ptx.split("\n")
    entries = [i for i, l in enumerate(lines) if _ENTRY.match(l)]
    if len(entries) != 1:
        raise ValueError(f"expected one kernel entry in the PTX, found "
                         f"{len(entries)}")
    name = _ENTRY.match(lines[entries[0]]).group(1)
    close = next(i for i in range(entries[0], len(lines))
                 if lines[i].startswith(")"))
    body = next(i for i in range(close, len(lines)) if lines[i] == "{")
    out = lines[:close]
    out[-1] = out[-1].rstrip() + ","
    out.append(f"\t.param .u64 .ptr .global .align 8 {name}_param_timeline")
    out += lines[close:body + 1]
    out += _prologue(name, ctas, max_records, warpgroups).split("\n")
    out += _store(START, max_records).split("\n")
    out += _store(SMID, max_records, "%smid").split("\n")
    tags = []
    in_asm, hit = False, None
    for n in range(body + 1, len(lines)):
        line = lines[n]
        out.append(line)
        text = line.strip()
        if text == "// begin inline asm":
            in_asm, hit = True, None
            continue
        if text == "// end inline asm":
            in_asm = False
            if hit:
                tags.append((FIRST_PROBE + len(tags), hit, len(out)))
                out += _store(tags[-1][0], max_records).split("\n")
            continue
        for kind in kinds:
            if PROBES[kind][1].search(text):
                if in_asm:
                    hit = hit or kind
                elif not text.startswith("@"):
                    tags.append((FIRST_PROBE + len(tags), kind, len(out)))
                    out += _store(tags[-1][0], max_records).split("\n")
                break
    return "\n".join(out), tags


def records(words, ctas, warpgroups, max_records):
    """{(cta, warpgroup): (smid, start clock, [(tag, clock), ...])} of the
    buffer's u32 words, for the warpgroups that recorded (their first
    record is START, at the kernel's entry)."""
    want = ctas * warpgroups * max_records * 2
    if len(words) != want:
        raise ValueError(f"expected {want} words, got {len(words)}")
    out = {}
    for slot in range(ctas * warpgroups):
        base = slot * max_records * 2
        if words[base] != START or words[base + 2] != SMID:
            continue
        seq = []
        for i in range(base + 4, base + max_records * 2, 2):
            if words[i] < FIRST_PROBE:
                break
            seq.append((words[i], words[i + 1]))
        out[divmod(slot, warpgroups)] = (words[base + 3], words[base + 1],
                                         seq)
    return out


def _steady(seq, skip):
    """`seq` without its first and last `skip` records (the prologue and
    the drain), unless that leaves too few."""
    return seq[skip:len(seq) - skip] if len(seq) > 2 * skip + 1 else seq


def transitions(seq, skip=8):
    """{(tag a, tag b): [cycles, ...]} between consecutive records of one
    warpgroup, leaving out its first and last `skip` records (the
    prologue and the drain); cycles modulo 2^32."""
    out = {}
    body = _steady(seq, skip)
    for (a, ca), (b, cb) in zip(body, body[1:]):
        out.setdefault((a, b), []).append((cb - ca) % (1 << 32))
    return out


def periods(seq, skip=8):
    """{tag: [cycles, ...]} between consecutive visits of each tag by one
    warpgroup (a loop's iterations), with `skip` as in transitions."""
    out, last = {}, {}
    for tag, clock in _steady(seq, skip):
        if tag in last:
            out.setdefault(tag, []).append((clock - last[tag]) % (1 << 32))
        last[tag] = clock
    return out


def role(seq, kinds_by_tag):
    """"producer" when the warpgroup issued fills or waited for free
    stages, else "consumer" (so without those probes, every warpgroup
    that recorded is called a consumer)."""
    kinds = {kinds_by_tag.get(t) for t, _ in seq}
    return "producer" if kinds & {"filled", "free"} else "consumer"


def table(recs, tags, skip=8, top=12):
    """Markdown: per role, its iteration (the probe it passes most often
    and the median cycles between two passes), then the transitions that
    take the most cycles (over every recorded warpgroup of that role),
    with their count, median and share of the role's cycles."""
    kinds_by_tag = {t: k for t, k, _ in tags}
    line_by_tag = {t: ln for t, _, ln in tags}

    def name(t):
        return f"{kinds_by_tag.get(t, t)}@{line_by_tag.get(t, '?')}"

    by_role, loops = {}, {}
    for (cta, wg), (smid, start, seq) in sorted(recs.items()):
        if len(seq) < 2:  # (no probe of the kinds asked on its path)
            continue
        r = f"{role(seq, kinds_by_tag)} (warpgroup {wg})"
        agg = by_role.setdefault(r, {})
        for pair, cycles in transitions(seq, skip).items():
            agg.setdefault(pair, []).extend(cycles)
        for tag, cycles in periods(seq, skip).items():
            loops.setdefault(r, {}).setdefault(tag, []).extend(cycles)
    lines = []
    for r, agg in by_role.items():
        total = sum(sum(c) for c in agg.values())
        lines += [f"\n{r}: {sum(len(c) for c in agg.values())} intervals, "
                  f"{total} cycles"]
        total = total or 1
        if loops.get(r):
            tag, cycles = max(loops[r].items(), key=lambda kv: len(kv[1]))
            lines.append(f"iteration: {name(tag)} every "
                         f"{statistics.median(cycles):.0f} cycles (median "
                         f"of {len(cycles)})")
        lines += ["", "| from | to | n | median cycles | mean | share |",
                  "|---|---|---|---|---|---|"]
        ranked = sorted(agg.items(), key=lambda kv: -sum(kv[1]))[:top]
        for (a, b), cycles in ranked:
            lines.append(f"| {name(a)} | {name(b)} | {len(cycles)} | "
                         f"{statistics.median(cycles):.0f} | "
                         f"{statistics.fmean(cycles):.0f} | "
                         f"{100 * sum(cycles) / total:.1f}% |")
    return "\n".join(lines)
