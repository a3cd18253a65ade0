# lit configuration of the posenc test suite.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "posenc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs", "python", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.posenc_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.posenc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment(
    "PYTHONPATH", os.path.join(config.posenc_src_root, "python"), append_path=True)
llvm_config.with_environment("POSENC_BUILD_DIR", config.posenc_obj_root)
# The emulated tensor-core tests run one OpenMP thread per GPU thread (128 per
# block) on a 2-core machine: libomp's default spin-wait at their barriers
# multiplies their time when threads outnumber cores, so waiting threads sleep.
llvm_config.with_environment("OMP_WAIT_POLICY", "passive")

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%posenc_src", config.posenc_src_root))
config.substitutions.append(("%posenc_obj", config.posenc_obj_root))
# test/Downstream: a second CMake project built against an installed posenc;
# test/Plugin: posenc loaded into the stock mlir-opt.
config.substitutions.append(("%cmake_generator", '"' + config.cmake_generator + '"'))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(
    ("%posenc_plugin", os.path.join(config.posenc_lib_dir, "libPosencPlugin.so")))
config.substitutions.append(("%stock_mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")))

# The OpenMP runtime the fused CPU path's parallel tile loop calls.
config.substitutions.append(("%libomp", os.path.join(config.llvm_lib_dir, "libomp.so")))

tools = ["posenc-opt", "mlir-runner", "mlir-opt", "FileCheck", "not"]
llvm_config.add_tool_substitutions(
    tools, [config.posenc_tools_dir, config.llvm_tools_dir])

# Feature flags: what this machine can run.
# An instrumented build (scripts/test-sanitizers.sh): tests in which an
# uninstrumented host process (python, the stock mlir-opt, a downstream
# project's build) loads or links posenc's instrumented libraries cannot
# run; they say `UNSUPPORTED: sanitizer`.
if config.posenc_sanitizer:
    config.available_features.add("sanitizer")
cuda_root = next((os.environ[v] for v in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")
                  if os.path.isdir(os.environ.get(v, ""))), "/usr/local/cuda")
if shutil.which("ptxas") or os.path.exists(os.path.join(cuda_root, "bin", "ptxas")):
    config.available_features.add("ptxas")
    # gpu-module-to-binary (format=bin/fatbin) and the tests find ptxas on PATH.
    if not shutil.which("ptxas"):
        llvm_config.with_environment("PATH", os.path.join(cuda_root, "bin"),
                                     append_path=True)

# The GPU runtime library (built when CMake found the CUDA toolkit).
posenc_cuda_runtime = os.path.join(config.posenc_lib_dir, "libposenc_cuda_runtime.so")
config.substitutions.append(("%posenc_cuda_runtime", posenc_cuda_runtime))
if os.path.exists(posenc_cuda_runtime):
    config.available_features.add("cuda-runtime")
# The toolkit's libcuda link stub: loads like a driver, fails every call.
cuda_stub = os.path.join(cuda_root, "lib64", "stubs", "libcuda.so")
config.substitutions.append(("%cuda_stub", cuda_stub))
if os.path.exists(cuda_stub):
    config.available_features.add("cuda-stub")


def _has_nvidia_gpu():
    if os.path.exists("/dev/nvidia0"):
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    import subprocess
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def _has_compute_capability_9_0():
    """Whether a GPU of compute capability 9.0 (Hopper: what sm_90a cubins,
    wgmma, run on) is present, as nvidia-smi reports it."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    import subprocess
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "9.0" in out.stdout.split()


# Execution tests on an NVIDIA GPU (test/Integration/GPU) need one; the
# warpgroup-MMA (sm_90a) ones a Hopper GPU.
if _has_nvidia_gpu():
    config.available_features.add("cuda-gpu")
    if _has_compute_capability_9_0():
        config.available_features.add("cuda-sm90")
