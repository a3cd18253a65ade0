# lit configuration of the posenc test suite.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "posenc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs", "python"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.posenc_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.posenc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment(
    "PYTHONPATH", os.path.join(config.posenc_src_root, "python"), append_path=True)
llvm_config.with_environment("POSENC_BUILD_DIR", config.posenc_obj_root)

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%posenc_src", config.posenc_src_root))
config.substitutions.append(("%posenc_obj", config.posenc_obj_root))
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")))

tools = ["posenc-opt", "mlir-runner", "mlir-opt", "FileCheck", "not"]
llvm_config.add_tool_substitutions(
    tools, [config.posenc_tools_dir, config.llvm_tools_dir])

# Feature flags: what this machine can run.
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
