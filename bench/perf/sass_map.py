"""A compact map of a kernel's SASS (what `cuobjdump -sass` prints): where
ptxas put the waits, barriers and tensor-core instructions among the math.

Runs of instructions with the same opcode (its first word, without the
predicate and modifiers) fold into one line, `ADDRESS OPCODE xCOUNT`; the
instructions that order a warp or the memory (HGMMA, WARPGROUP, SYNCS, BAR,
MEMBAR, FENCE, DEPBAR, VOTE, branches, global stores, EXIT) are printed in
full. `--from` starts at the first instruction containing its text (for a
warp-specialized kernel, `USETMAXREG.TRY_ALLOC`: the consumers). No GPU
needed: cuobjdump runs anywhere the CUDA toolkit is, on a cubin from ptxas.
For example, where P V's wait sits in the prefill kernel's loop:

    ptxas -arch=sm_90a prefill.ptx -o prefill.cubin
    cuobjdump -sass prefill.cubin > prefill.sass
    bench/run.py sass_map prefill.sass --from USETMAXREG.TRY_ALLOC
"""

import itertools
import re
import sys

from lib.env import parser

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = re.compile(r"^@!?U?P\w+\s+")
KEY = ("HGMMA", "WARPGROUP", "SYNCS", "BAR", "MEMBAR", "FENCE", "DEPBAR",
       "VOTE", "BRA", "STG", "EXIT", "RET")


def instructions(text):
    """(address, opcode, text) of each instruction of a cuobjdump listing."""
    out = []
    for line in text.splitlines():
        m = INSTRUCTION.search(line)
        if not m:
            continue
        address, body = m.groups()
        body = PREDICATE.sub("", body.strip())
        if body:
            out.append((address, body.split()[0], m.group(2).strip()))
    return out


def fold(insts):
    """The map's lines: key instructions in full, other runs counted."""
    def run_key(inst):
        # (None for a key instruction: each printed on its own.)
        opcode = inst[1]
        return None if opcode.startswith(KEY) else opcode.split(".")[0]

    lines = []
    for base, group in itertools.groupby(insts, run_key):
        group = list(group)
        if base is None:
            lines += [f"{address:>6}   {full}" for address, _, full in group]
        else:
            lines.append(f"{group[0][0]:>6} {base} x{len(group)}")
    return lines


def main(argv=None):
    p = parser("sass_map", __doc__)
    p.add_argument("sass", help="cuobjdump -sass output")
    p.add_argument("--from", dest="start", metavar="TEXT",
                   help="start at the first instruction containing TEXT")
    args = p.parse_args(argv)
    try:
        with open(args.sass, encoding="utf-8", errors="replace") as f:
            insts = instructions(f.read())
    except OSError as e:
        print(f"sass_map: {e}", file=sys.stderr)
        return 1
    if not insts:
        print(f"sass_map: {args.sass}: no SASS instructions (is it "
              "cuobjdump -sass output?)", file=sys.stderr)
        return 1
    if args.start:
        first = next((i for i, (_, _, full) in enumerate(insts)
                      if args.start in full), None)
        if first is None:
            print(f"sass_map: {args.sass}: no instruction contains "
                  f"{args.start!r}", file=sys.stderr)
            return 1
        insts = insts[first:]
    print("\n".join(fold(insts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
