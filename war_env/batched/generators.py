"""The rounds' own numpy Generators inside the compiled loops, without a numba typed list.

Each round of the vector env deals from its own ``np.random.Generator`` (as ``WarEnv.reset`` does), and
its autoreset happens inside the compiled step. numba can drive a numpy Generator to numpy's exact
numbers, given the C state and functions of its bit generator (what ``bit_generator.ctypes`` holds);
``pointers_of`` reads those once, and ``generator`` rebuilds numba's view of the Generator from them in
the loop. (A numba typed list of Generators does the same but compiles its own methods in every
process, which cost about a second of each start.) The Python Generators must outlive the pointers:
``BatchedSteps.generators`` keeps them.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

POINTERS = 4
"""A row of ``pointers_of``: the state, then ``next_uint64``, ``next_uint32``, ``next_double``."""


def pointers_of(rng: np.random.Generator) -> list[int]:
    """The C state and functions of ``rng``'s bit generator, as numba's own unboxing reads them."""
    interface = rng.bit_generator.ctypes
    functions = (interface.next_uint64, interface.next_uint32, interface.next_double)
    return [interface.state_address, *(ctypes.cast(function, ctypes.c_void_p).value for function in functions)]


@intrinsic
def generator(typingctx, state, next_uint64, next_uint32, next_double):
    """numba's Generator over the bit generator whose pointers are given (no Python object behind it:
    it cannot be returned to Python, and needs none to draw)."""

    def codegen(context, builder, signature, args):
        bits = cgutils.create_struct_proxy(types.NumPyRandomBitGeneratorType("bit_generator"))(context, builder)
        bits.state_address = bits.state = args[0]
        bits.fnptr_next_uint64, bits.fnptr_next_uint32, bits.fnptr_next_double = args[1:]
        bits.bit_generator = context.get_constant(types.uintp, 0)
        bits.parent = cgutils.get_null_value(bits.parent.type)
        rng = cgutils.create_struct_proxy(types.npy_rng)(context, builder)
        rng.bit_generator = bits._getvalue()
        rng.meminfo = cgutils.get_null_value(rng.meminfo.type)
        rng.parent = cgutils.get_null_value(rng.parent.type)
        return rng._getvalue()

    return types.npy_rng(types.uintp, types.uintp, types.uintp, types.uintp), codegen
