// docs/Dialects/TileDialect.md is the dialect reference mlir-tblgen generates
// from the ODS (the build makes build/docs/Dialects/TileDialect.md). After an
// ODS change: ninja -C build && cp build/docs/Dialects/TileDialect.md docs/Dialects/
// RUN: diff %quire_obj/docs/Dialects/TileDialect.md %quire_src/docs/Dialects/TileDialect.md
// RUN: grep -c "### \`tile.warpgroup_dot\`" %quire_src/docs/Dialects/TileDialect.md | FileCheck %s
// CHECK: 1
