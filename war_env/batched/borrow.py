"""Arrays without reference counting inside the compiled loops (``borrowed``).

Why: numba counts references to every array it binds to a variable, takes a field of or passes on: an
atomic increment and decrement each time, dozens per round in the hot loops. With every array of a
kernel's arguments borrowed at its entry, the engine's step took 135 us instead of 340 us at N = 4096
(docs/results/speed.md, "Where a step's time goes at N = 4096", has the step's pieces). Safe because the caller
owns the arrays for the whole call and the kernels keep no view of them beyond it; arrays the kernels allocate
themselves keep their counts.
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array, or a tuple holding arrays) without its arrays' reference counts."""

    def strip(context, builder, typ, val):
        if isinstance(typ, types.Array):
            array = context.make_array(typ)(context, builder, val)
            array.meminfo = cgutils.get_null_value(array.meminfo.type)
            return array._getvalue()
        if isinstance(typ, types.BaseTuple):
            for index, member in enumerate(typ.types):
                val = builder.insert_value(
                    val, strip(context, builder, member, builder.extract_value(val, index)), index
                )
        return val

    def codegen(context, builder, signature, args):
        return strip(context, builder, value, args[0])

    return value(value), codegen
