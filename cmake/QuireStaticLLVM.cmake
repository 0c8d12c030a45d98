#===- QuireStaticLLVM.cmake - Link LLVM/MLIR statically ------------------===#
#
# Debian's MLIR CMake targets link the LLVM shared library (LLVM_LINK_LLVM_DYLIB
# is ON in its LLVMConfig.cmake). Every Quire binary must run on a machine
# without LLVM, so this module rewrites the imported MLIR* targets: each `LLVM`
# entry in INTERFACE_LINK_LIBRARIES becomes the static LLVM component archives.
# lld is used when present: it resolves symbols across archives in any order
# and links ~80 MB binaries in seconds.
#
#===----------------------------------------------------------------------===#

set(LLVM_LINK_LLVM_DYLIB OFF)

llvm_map_components_to_libnames(QUIRE_LLVM_STATIC_LIBS
  Core Support IRReader IRPrinter Passes Analysis TransformUtils ScalarOpts
  InstCombine IPO Linker BitReader BitWriter AsmParser Target TargetParser
  MC MCParser CodeGen SelectionDAG AsmPrinter FrontendOpenMP
  FrontendOffloading FrontendHLSL Object BinaryFormat Demangle
  NVPTXCodeGen NVPTXDesc NVPTXInfo)

# Debian's LLVMSupport names libz3.so, which the GPU machine lacks and nothing
# in Quire uses; zstd::libzstd_shared may not be defined by this CMake.
get_target_property(_quire_support_libs LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER _quire_support_libs EXCLUDE REGEX "libz3")
set_target_properties(LLVMSupport PROPERTIES
  INTERFACE_LINK_LIBRARIES "${_quire_support_libs}")
if(NOT TARGET zstd::libzstd_shared)
  find_library(QUIRE_ZSTD_LIB NAMES zstd REQUIRED)
  add_library(zstd::libzstd_shared UNKNOWN IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
    IMPORTED_LOCATION "${QUIRE_ZSTD_LIB}")
endif()

get_property(_quire_imported DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(_tgt IN LISTS _quire_imported)
  if(_tgt MATCHES "^MLIR")
    get_target_property(_libs ${_tgt} INTERFACE_LINK_LIBRARIES)
    if(_libs)
      list(TRANSFORM _libs REPLACE "^LLVM$" "${QUIRE_LLVM_STATIC_LIBS}")
      set_target_properties(${_tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
    endif()
  endif()
endforeach()

find_program(QUIRE_LLD NAMES ld.lld PATHS "${QUIRE_LLVM_ROOT}/bin" NO_DEFAULT_PATH)
if(QUIRE_LLD)
  # -B makes gcc pick LLVM 22's ld.lld even when /usr/bin/ld.lld is absent.
  get_filename_component(_quire_lld_dir "${QUIRE_LLD}" DIRECTORY)
  add_link_options("-B${_quire_lld_dir}" "-fuse-ld=lld" "-Wl,--as-needed")
else()
  add_link_options("-Wl,--as-needed")
endif()
