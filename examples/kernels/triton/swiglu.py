"""SwiGLU, the gated activation of LLaMA-style MLPs, in Triton: y = silu(gate) * up with
silu(g) = g * sigmoid(g), gate, up and y f16, computed in f32 (tl.sigmoid: 1 / (1 + exp(-g))).
One program per BLOCK elements, masked at n. swiglu_swapped is a wrong variant (the activation on
the wrong half: silu(up) * gate, a bug of a port that reads the fused projection's halves in the
other order).

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def _swiglu(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = i < n
    a = tl.load(a_ptr + i, mask=inside).to(tl.float32)
    b = tl.load(b_ptr + i, mask=inside).to(tl.float32)
    tl.store(y_ptr + i, (a * tl.sigmoid(a) * b).to(tl.float16), mask=inside)


@triton.jit
def swiglu(gate_ptr, up_ptr, y_ptr, n, BLOCK: tl.constexpr):
    _swiglu(gate_ptr, up_ptr, y_ptr, n, BLOCK)


@triton.jit
def swiglu_swapped(gate_ptr, up_ptr, y_ptr, n, BLOCK: tl.constexpr):
    _swiglu(up_ptr, gate_ptr, y_ptr, n, BLOCK)
