"""posenc Python package."""

from . import reference
# The compiler loads libPosencCAPI.so only at the first compile(), so this
# import works without a build.
from .compiler import (compile, cuda_device, PosencError, to_bf16_bits,
                       from_bf16_bits)
from . import builders
from .builders import (Program, alibi_bias, bloom_alibi_attention, llama_attention,
                       rope, shaw_attention, sinusoidal)
