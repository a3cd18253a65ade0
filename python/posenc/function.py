"""``CompiledFunction``: a JIT-compiled entry function called on numpy values.

The calling convention. ``compile`` marks the entry function
``llvm.emit_c_interface`` and its tensor arguments
``bufferization.writable = false`` before lowering, so the lowered code never
writes into the caller's arrays. The pipeline bufferizes function boundaries
to identity-layout memrefs, and the JIT exposes ``_mlir_ciface_<name>``,
which takes each memref as a pointer to a strided descriptor (``memref.py``)
and returns memrefs (or several results) through a leading pointer to a
result struct, a lone scalar by value. It is called through the
ExecutionEngine's packed wrapper (``args[i]`` points to the i-th argument)
by ``posencJitCall``.

Results. On the CPU, a function whose results are all statically shaped
tensors is compiled destination-passing (``compiler._to_destinations``,
the pass ``posenc-results-to-destinations``): it takes one array per result
after its arguments and writes the result there, in place. ``out=`` (an
array, or a tuple with one entry per result, None for "return a new one")
is that array -- C-contiguous, writeable, of the result's dtype and shape,
and returned as the result -- except where it overlaps an argument or
another result's array (the compiled code assumes its destinations alias
nothing), in which case the call writes a pool array and copies it into
``out=``. Without ``out=`` a result of 1 MiB or more is a pool array
(``result_pool.ResultPool``; a smaller one a fresh numpy array): its memory is reused by a later call once
the array and every view of it are gone, so a loop of returning calls pays
no page faults for fresh result memory. Arrays aligned to 64 bytes
(``posenc.empty``) are the fastest destinations.

Other functions (a dynamic result shape, a scalar result, an entry called
inside its module, the CUDA target) return buffers the compiled code
allocates (malloc; managed memory on the GPU). On the CPU a contiguous
result buffer becomes the returned numpy array itself (no copy: the array
owns the buffer and frees it when it is collected); other results are
copied into fresh arrays and their buffers freed; ``out=`` copies into the
caller's arrays.

Types: tensors (static or dynamic dims) of f16, bf16, f32, f64, i1, i8, i16,
i32, i64 and index, identity-layout memrefs of the same, and integer, index
and float scalars. numpy has no bfloat16: bf16 tensors are passed and
returned as ``np.uint16`` arrays of bf16 bit patterns (see
``posenc.to_bf16_bits`` and ``posenc.from_bf16_bits``). Scalars are Python
or numpy numbers. A tensor argument may be any array of the right dtype (a
non-contiguous one is copied); a memref argument is the caller's array, which
the function may write, so it must be C-contiguous and writeable.

Dynamic sizes that must agree (e.g. the length of RoPE positions and the
sequence dim of its input) are checked by the compiled code; a failed check
raises ``PosencError`` with the op's message instead of aborting the
interpreter (buffers the call allocated before the check are leaked).
Upstream ops without such checks (e.g. an elementwise add of two `?` tensors)
leave a mismatch undefined, so callers must still pass consistent shapes.

``target="cuda"``: arguments are copied into CUDA managed memory for the call
(memref arguments copied back) and results, managed memory too, copied out
and released (``memref.CopiedMemory``, ``cuda.CudaRuntime.memory``).
"""

import ctypes

import numpy as np

from .errors import PosencError
from .memref import (HostMemory, TypeSpec, adopt_result, array_argument, copy_out,
                     fill_descriptor, scalar_argument, scalar_result)
from .result_pool import ResultPool

__all__ = ["CompiledFunction"]


class _CallFrame:
    """What one call owns until it returns: the packed argument slots, the
    ctypes objects they point to, the argument buffers and the copies the
    memory model made of them (pointer, array, bytes, written back)."""

    def __init__(self):
        self.slots = []
        self.keep_alive = []
        self.argument_buffers = set()
        self.copies = []
        self.out = []
        self.arrays = []  # the array arguments as passed
        self.pending = []  # (out= array, pool array copied into it after the call)


class CompiledFunction:
    """A JIT-compiled function; call it with one value per argument.

    Returns None, one numpy array (or Python/numpy scalar), or a tuple when
    the function has several results. Attributes: ``name``, ``signature``
    (the C API's description of the source function: argument and result
    types), ``lowered_ir`` (the module after the pipeline), ``target``."""

    def __init__(self, library, jit, packed, signature, lowered_ir, memory=None):
        self._library = library
        self._memory = memory or HostMemory(library.free)
        self.target = self._memory.target
        self._jit = jit
        self._packed = packed
        self.name = signature["name"]
        self.signature = signature
        self.lowered_ir = lowered_ir
        self._arguments = [TypeSpec(description, f"argument #{i} of @{self.name}")
                           for i, description in enumerate(signature["arguments"])]
        self._results = [TypeSpec(description, f"result #{i} of @{self.name}")
                         for i, description in enumerate(signature["results"])]
        # Destination-passing (compiler._to_destinations): the results are
        # trailing memref arguments; we pass one array per result.
        self._destination_passing = bool(signature.get("destination_passing"))
        self._pool = ResultPool() if self._destination_passing else None
        # Otherwise the C interface returns a struct (memrefs, several
        # results) through a leading pointer argument and a lone scalar by
        # value, which the packed wrapper stores through a trailing pointer.
        self._result_by_pointer = not self._destination_passing and (
            len(self._results) > 1 or any(r.is_buffer for r in self._results))
        self._result_struct = None
        if self._result_by_pointer:
            self._result_struct = type("Results", (ctypes.Structure,), {
                "_fields_": [(f"r{i}", r.lowered_ctype)
                             for i, r in enumerate(self._results)]})

    def __repr__(self):
        arguments = ", ".join(a.text for a in self._arguments)
        results = ", ".join(r.text for r in self._results)
        return f"<CompiledFunction @{self.name}({arguments}) -> ({results})>"

    def __del__(self):
        jit, self._jit = getattr(self, "_jit", None), None
        if jit is not None and jit.ptr and self._library is not None:
            self._library.jit_destroy(jit)

    def __call__(self, *args, out=None):
        if self._jit is None:
            raise PosencError(f"@{self.name} was destroyed")
        if len(args) != len(self._arguments):
            expected = ", ".join(a.text for a in self._arguments)
            raise PosencError(f"@{self.name} takes {len(self._arguments)} argument(s) "
                              f"({expected}), got {len(args)}")
        frame = _CallFrame()
        frame.out = self._check_out(out)
        try:
            return self._call(args, frame)
        finally:
            for pointer, _, _, _ in frame.copies:
                self._memory.free(pointer)

    def _call(self, args, frame):
        results = None
        if self._result_by_pointer:
            results = self._result_struct()
            self._add_slot(frame, ctypes.c_void_p(ctypes.addressof(results)))
        for spec, value in zip(self._arguments, args):
            if spec.is_buffer:
                self._pass_array(frame, spec, value)
            else:
                self._add_slot(frame, spec.ctype(scalar_argument(spec, value)))
        if self._destination_passing:
            destinations = self._pass_destinations(frame)
        scalar = None
        if not self._result_by_pointer and self._results and not self._destination_passing:
            scalar = self._results[0].ctype()
            self._add_slot(frame, scalar)

        packed = (ctypes.c_void_p * max(1, len(frame.slots)))(*frame.slots)
        # Through posencJitCall: a failed run-time check of the compiled code
        # (e.g. inconsistent dynamic sizes) raises PosencError instead of
        # aborting the interpreter.
        self._library.call(self._library.jit_call, self._packed, packed,
                           what=f"@{self.name} failed")
        # A memref argument is the caller's array: what the function wrote
        # into its copy goes back.
        for pointer, array, size, written_back in frame.copies:
            if written_back:
                ctypes.memmove(array.ctypes.data, pointer, size)

        if self._destination_passing:
            for out, written in frame.pending:
                np.copyto(out, written)
            return destinations[0] if len(destinations) == 1 else tuple(destinations)
        if scalar is not None:
            return scalar_result(self._results[0], scalar.value)
        if results is None:
            return None
        return self._collect_results(results, frame.argument_buffers, frame.out)

    @staticmethod
    def _add_slot(frame, value):
        """Appends the address of ``value`` (a ctypes object) to the packed
        arguments and keeps it alive for the call."""
        frame.keep_alive.append(value)
        frame.slots.append(ctypes.addressof(value))

    def _pass_array(self, frame, spec, value):
        """Checks an array argument, copies it where the memory model wants
        its buffers, and passes a pointer to its descriptor."""
        array = array_argument(spec, value)
        data = array.ctypes.data
        if self._memory.copies_arguments and array.nbytes:
            pointer = self._memory.alloc(array.nbytes)
            frame.copies.append((pointer, array, array.nbytes, spec.kind == "memref"))
            ctypes.memmove(pointer, data, array.nbytes)
            data = pointer
        descriptor = fill_descriptor(spec, array, data)
        frame.keep_alive += [array, descriptor]
        frame.argument_buffers.add(data)
        frame.arrays.append(array)
        self._add_slot(frame, ctypes.c_void_p(ctypes.addressof(descriptor)))

    def _pass_destinations(self, frame):
        """Passes one array per result of a destination-passing function and
        returns the arrays the call returns: the caller's ``out=`` array,
        written directly where it overlaps no argument and no other result
        (the compiled code assumes its destinations alias nothing), else a
        pool array that is copied into it after the call; without ``out=``,
        a pool array."""
        returned = []
        for spec, out in zip(self._results, frame.out):
            if out is not None and out.shape != spec.shape:
                raise PosencError(f"{spec.where}: out= has shape {out.shape}, "
                                  f"the result {spec.shape}")
            overlaps = out is not None and any(np.may_share_memory(out, array)
                                               for array in frame.arrays + returned)
            array = out if out is not None and not overlaps else \
                self._pool.array(spec.shape, spec.dtype)
            if overlaps:
                frame.pending.append((out, array))
            returned.append(out if out is not None else array)
            descriptor = fill_descriptor(spec, array, array.ctypes.data)
            frame.keep_alive += [array, descriptor]
            self._add_slot(frame, ctypes.c_void_p(ctypes.addressof(descriptor)))
        return returned

    def _check_out(self, out):
        """``out=`` as one entry (an array or None) per result."""
        if out is None:
            return [None] * len(self._results)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(outs) != len(self._results):
            raise PosencError(f"@{self.name}: out= has {len(outs)} entries for "
                              f"{len(self._results)} result(s)")
        for spec, array in zip(self._results, outs):
            if array is None:
                continue
            if not spec.is_buffer:
                raise PosencError(f"{spec.where}: a scalar result takes no out= array")
            if not isinstance(array, np.ndarray) or array.dtype != spec.dtype:
                raise PosencError(f"{spec.where}: out= must be a numpy array of dtype "
                                  f"{spec.dtype}, got {type(array).__name__}"
                                  f"{' of ' + str(array.dtype) if isinstance(array, np.ndarray) else ''}")
            if not (array.flags.c_contiguous and array.flags.writeable):
                raise PosencError(f"{spec.where}: out= must be C-contiguous and writeable")
        return outs

    def _collect_results(self, results, argument_buffers, outs):
        """The result struct as numpy values (written into ``outs`` where
        given). Converts every result before raising anything, so that no
        buffer leaks."""
        outputs, freed, failure = [], set(), None
        for i, spec in enumerate(self._results):
            raw = getattr(results, f"r{i}")
            try:
                if spec.is_buffer:
                    outputs.append(self._array_result(spec, raw, argument_buffers, freed,
                                                      outs[i]))
                else:
                    outputs.append(scalar_result(spec, raw))
            except PosencError as error:
                failure = failure or error
        if failure is not None:
            raise failure
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _array_result(self, spec, descriptor, argument_buffers, freed, out=None):
        # The buffer was allocated by the compiled code (malloc; managed
        # memory on the GPU) and is now ours -- unless it is one of the
        # arguments' buffers (a memref argument returned as is) or was taken
        # already (a value returned twice).
        allocated = descriptor.allocated
        owned = bool(allocated) and allocated not in argument_buffers and allocated not in freed
        if out is None and owned and self._memory.target == "cpu":
            array = adopt_result(spec, descriptor, self._memory.free)
            if array is not None:
                freed.add(allocated)
                return array
        try:
            return copy_out(spec, descriptor, into=out)
        finally:
            if owned:
                freed.add(allocated)
                self._memory.free(allocated)
