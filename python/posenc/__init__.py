"""posenc Python package.

``posenc.reference`` is the independent numpy form of docs/spec.md;
``posenc.builders`` writes posenc programs; ``posenc.compile`` lowers and
JIT-compiles them (``compiler``, with the C API binding in ``capi``, the
memref ABI in ``memref``, the calling convention in ``function`` and the
CUDA runtime in ``cuda``).
"""

from . import reference
# The compiler loads libPosencCAPI.so only at the first compile(), so this
# import works without a build.
from . import compiler
from .compiler import compile, run_pipeline
from .cuda import cuda_device
from .errors import PosencError
from .function import CompiledFunction
from .memref import from_bf16_bits, to_bf16_bits
from .result_pool import empty, empty_like
from . import builders
from .builders import (Program, alibi_bias, bloom_alibi_attention, llama_attention,
                       llama_attention_tables, rope, rope_table, shaw_attention,
                       sinusoidal, xpos_attr)
from . import relative_builders
from .relative_builders import deberta_attention, t5_attention, t5_bias, xl_attention
