"""The one exception type of the compiler side of the package."""

__all__ = ["PosencError"]


class PosencError(Exception):
    """A failure to compile or call: MLIR's diagnostics, a JIT error, or a
    mismatch between the arguments and the function's signature.

    ``str(error)`` is the whole message; ``error.diagnostics`` is the text that
    came from MLIR/LLVM (``file:line:col: error: ...``), or None when the
    error was found in Python."""

    def __init__(self, message, diagnostics=None):
        super().__init__(message)
        self.diagnostics = diagnostics
