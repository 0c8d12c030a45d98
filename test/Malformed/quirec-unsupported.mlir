// Inputs that are valid tile IR but that the GPU backend cannot compile: quire-opt
// accepts each one, quirec rejects it with a located "not supported" (or "no
// kernel") diagnostic instead of an assertion or an LLVM fatal error.
// RUN: %python %S/check_malformed.py --accepted-by quire-opt --expect 'not supported|no kernel|already assigned' %S/Unsupported quirec --emit=ptx -o %t.ptx | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed
