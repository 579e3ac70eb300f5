"""Row softmax in Triton: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), float32.
One program per row (grid (rows,)); the whole row (BLOCK columns, masked beyond n_cols with
-inf) is held in registers, reduced for the maximum and for the sum across the program's warps.

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    vals = tl.load(x_ptr + row * x_row_stride + cols, mask=inside, other=-float("inf"))
    shifted = vals - tl.max(vals, axis=0)
    num = tl.exp(shifted)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * y_row_stride + cols, num / den, mask=inside)
