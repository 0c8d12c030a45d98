// A tile.kernel declaration without a body is a located error: it has no
// PTX .entry, so a launch of the kernel --emit=meta would list fails with
// "named symbol not found".
func.func private @a(%x: i32) attributes {tile.kernel}
