// The rewrite computes what tile.paged_load means: lowered kernels run in the
// interpreter against the same float64 NumPy references as the originals,
// on fresh random block tables (random permutations of the pages), ragged
// seq_lens including 0 and 1, page sizes 8, 16 and 64, and every option.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-opt %quire_src/examples/paged_decode_attention.mlir --quire-lower-paged-loads -o %t/decode.mlir
// RUN: %python %quire_src/test/Interpreter/Inputs/differential.py paged_decode_attention \
// RUN:   --quire-run quire-run --source %t/decode.mlir --tmp %t --seed 11 | FileCheck %s --check-prefix=DECODE
// RUN: quire-opt %quire_src/examples/paged_decode_attention.mlir "--quire-lower-paged-loads=prefetch=false shifts=false" -o %t/decode-plain.mlir
// RUN: %python %quire_src/test/Interpreter/Inputs/differential.py paged_decode_attention \
// RUN:   --quire-run quire-run --source %t/decode-plain.mlir --tmp %t --seed 12 | FileCheck %s --check-prefix=DECODE
// RUN: quire-opt %quire_src/test/Interpreter/paged-load-page-sizes.mlir --quire-lower-paged-loads -o %t/pages.mlir
// RUN: %python %quire_src/test/Interpreter/Inputs/differential.py paged_load \
// RUN:   --quire-run quire-run --source %t/pages.mlir --tmp %t --seed 13 | FileCheck %s --check-prefix=PAGES
// RUN: quire-opt %quire_src/test/Interpreter/paged-load-page-sizes.mlir "--quire-lower-paged-loads=single-page=false prefetch=false" -o %t/pages-plain.mlir
// RUN: %python %quire_src/test/Interpreter/Inputs/differential.py paged_load \
// RUN:   --quire-run quire-run --source %t/pages-plain.mlir --tmp %t --seed 14 | FileCheck %s --check-prefix=PAGES

// DECODE: paged_decode_attention {{.*}} ok
// PAGES: paged_load page_size=8: exact ok
// PAGES: paged_load page_size=16: exact ok
// PAGES: paged_load page_size=64: exact ok
