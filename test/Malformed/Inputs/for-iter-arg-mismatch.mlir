// The loop yields an i64 for an i32 iter_arg.
func.func @k(%n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
    %b = arith.extsi %a : i32 to i64
    scf.yield %b : i64
  }
  return
}
