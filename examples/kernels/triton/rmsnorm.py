"""RMSNorm of rows in Triton, as LLM inference kernels write it: x and y f16, the weight f32,
computed in f32: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w (tl.math.rsqrt). One program
per row (grid (rows,)), the row in registers, one tl.sum across the program's warps.
rms_norm_rows_no_eps is a wrong variant (eps left out: the two differ for every input).

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def _rms_norm_row(x_ptr, w_ptr, y_ptr, eps, row_stride, N: tl.constexpr, USE_EPS: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * row_stride + cols).to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / N
    if USE_EPS:
        mean_square += eps
    y = x * tl.math.rsqrt(mean_square) * tl.load(w_ptr + cols)
    tl.store(y_ptr + row * row_stride + cols, y.to(tl.float16))


@triton.jit
def rms_norm_rows(x_ptr, w_ptr, y_ptr, eps, row_stride, N: tl.constexpr):
    _rms_norm_row(x_ptr, w_ptr, y_ptr, eps, row_stride, N, True)


@triton.jit
def rms_norm_rows_no_eps(x_ptr, w_ptr, y_ptr, eps, row_stride, N: tl.constexpr):
    _rms_norm_row(x_ptr, w_ptr, y_ptr, eps, row_stride, N, False)
