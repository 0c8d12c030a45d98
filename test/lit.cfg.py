# -*- Python -*-
# lit configuration for Quire's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "QUIRE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quire_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%quire_src", config.quire_src_root))
config.substitutions.append(("%quire_obj", config.quire_obj_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# `not` at the start of a RUN line is found through PATH (lit substitutes it
# only after a pipe).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas (CUDA toolkit) is optional: tests that assemble PTX need it.
import shutil
ptxas = os.environ.get("QUIRE_PTXAS") or shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

tool_dirs = [config.quire_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["quire-opt", "quire-run", "quirec"], tool_dirs)
