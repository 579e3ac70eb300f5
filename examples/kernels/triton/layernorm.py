"""LayerNorm of rows in Triton, float32: y[r, :] = (x[r, :] - mean) / sqrt(var + eps) * gamma + beta,
with the biased variance mean((x - mean)^2). One program per row (grid (rows,)); the row (BLOCK
columns, masked beyond n_cols) is held in registers and reduced across the program's warps twice.
The loads carry L2 eviction hints, as bandwidth-tuned Triton kernels write them: the row is kept
(evict_last), gamma and beta, read once per row, go first (evict_first). Triton spells each hint
as a `createpolicy.fractional` and an `ld.global.L2::cache_hint`. layernorm_rows_unbiased is a
wrong variant (the unbiased variance).

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def _layernorm_row(x_ptr, gamma_ptr, beta_ptr, y_ptr, eps, row_stride, n_cols, BLOCK: tl.constexpr,
                   CORRECTION: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=inside, other=0.0, eviction_policy="evict_last")
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(inside, x - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / (n_cols - CORRECTION)
    rstd = 1.0 / tl.sqrt(var + eps)
    gamma = tl.load(gamma_ptr + cols, mask=inside, other=0.0, eviction_policy="evict_first")
    beta = tl.load(beta_ptr + cols, mask=inside, other=0.0, eviction_policy="evict_first")
    tl.store(y_ptr + row * row_stride + cols, centered * rstd * gamma + beta, mask=inside)


@triton.jit
def layernorm_rows(x_ptr, gamma_ptr, beta_ptr, y_ptr, eps, row_stride, n_cols, BLOCK: tl.constexpr):
    _layernorm_row(x_ptr, gamma_ptr, beta_ptr, y_ptr, eps, row_stride, n_cols, BLOCK, 0)


# A bug a port from PyTorch makes: the unbiased variance (torch.var's default, divided by n - 1)
# where LayerNorm takes the biased one. gpueq finds it not equivalent, with an input.
@triton.jit
def layernorm_rows_unbiased(x_ptr, gamma_ptr, beta_ptr, y_ptr, eps, row_stride, n_cols, BLOCK: tl.constexpr):
    _layernorm_row(x_ptr, gamma_ptr, beta_ptr, y_ptr, eps, row_stride, n_cols, BLOCK, 1)
