#!/usr/bin/env bash
# Session 5: per-SASS-instruction source counters of Quire's decode split
# kernel: which instructions carry the excessive L2 sectors.
set -uo pipefail
eval "$(tools/scripts/device-unpack.sh)"
cd bench && timeout 300 ncu --clock-control none --kernel-name regex:"${KREGEX:-^paged_decode_split}" \
  --launch-skip 1 --launch-count 1 --section SourceCounters --page source --csv --print-source sass \
  python3 decode_profile.py > $OUT/ncu_sass.csv 2>&1
echo "ncu rc $?"
head -3 $OUT/ncu_sass.csv | cut -c1-600
python3 - <<'PY'
import csv, os
rows = list(csv.reader(open(os.environ["OUT"] + "/ncu_sass.csv")))
hdr = next(i for i, r in enumerate(rows) if any("Source" in c for c in r))
h = rows[hdr]
print(h)
col = [i for i, c in enumerate(h) if "Excessive" in c or "Theoretical Sectors" in c or c in ("Source", "Address")]
for r in rows[hdr + 1:]:
    if len(r) != len(h):
        continue
    vals = [r[i] for i in col]
    if any(("LDG" in r[j] or "LDGSTS" in r[j] or "STG" in r[j] or "LDS" in r[j]) for j in range(len(r))):
        print(vals)
PY
