// A tile.kernel declaration without a body (once compiled to PTX with
// no .entry while --emit=meta listed kernel "a", so a launch failed with
// "named symbol not found"). Now a located error.
func.func private @a(%x: i32) attributes {tile.kernel}
