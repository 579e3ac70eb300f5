"""Prefix sums of rows in Triton, float32: y[r, c] = x[r, 0] + ... + x[r, c] (tl.cumsum, an
inclusive scan). One program per row (grid (rows,)), BLOCK columns held across the program's
warps: Triton scans within each thread's elements, then across lanes with shuffles, then across
warps through shared memory. cumsum_rows_exclusive is a wrong variant (the exclusive scan,
x[r, 0] + ... + x[r, c - 1], a port that mixes up torch.cumsum and a prefix offset); regen.py
does not compile it yet: gpueq gets its verdict (not-equivalent), but its symbolic run builds
terms with the fast forms that differ in form (not in value) from the generic path's, which the
fast-forms law test (tests/check/fast_forms_corpus_test.cpp) does not allow.

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def cumsum_rows(x_ptr, y_ptr, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols)
    tl.store(y_ptr + row * row_stride + cols, tl.cumsum(x, axis=0))


@triton.jit
def cumsum_rows_exclusive(x_ptr, y_ptr, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols)
    tl.store(y_ptr + row * row_stride + cols, tl.cumsum(x, axis=0) - x)
