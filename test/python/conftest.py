"""pytest configuration shared by every test module.

The emulated tensor-core tests run one OpenMP thread per GPU thread (128 per
block) on a 2-core machine; libomp's default spin-wait at their barriers
multiplies their time when threads outnumber cores. Waiting threads sleep
instead. Set before any test loads libomp (the JIT loads it on first use).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
