// examples/paged_decode_attention.mlir in quire-run against a float64 NumPy
// attention: 16 sequences, GQA with 4 query heads per KV head (8 q heads, 2 kv
// heads), page size 16, ragged seq_lens including 0 and 1 and lengths that
// are not multiples of 16 or 64 (up to 313), block tables from a random
// permutation of the pages. fp16 output, relative error < 1e-3 per head;
// empty sequences must give exactly 0.
// RUN: %python %S/Inputs/differential.py paged_decode_attention \
// RUN:   --quire-run quire-run \
// RUN:   --source %quire_src/examples/paged_decode_attention.mlir --tmp %t \
// RUN:   | FileCheck %s

// CHECK: paged_decode_attention seqs=16 q_heads=8 kv_heads=2: rel_err<1e-3 ok
