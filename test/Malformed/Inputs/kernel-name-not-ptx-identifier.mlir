// A kernel named with a space: PTX cannot name the entry (LLVM aborted).
func.func @"a b"() attributes {tile.kernel} {
  return
}
