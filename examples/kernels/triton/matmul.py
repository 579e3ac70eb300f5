"""Tiled matrix product C = A @ B in Triton: A (M x K) and B (K x N) half precision, C (M x N)
float32, accumulation in float32. One program per BLOCK_M x BLOCK_N tile of C (grid
(M / BLOCK_M, N / BLOCK_N)); the K loop walks BLOCK_K-wide slabs and feeds tl.dot.

Two versions of the same computation:
  matmul_ptr   plain pointer arithmetic with row/column strides and bounds masks (what a
               Triton kernel for any GPU looks like; tl.dot becomes mma.sync on sm_80 and
               wgmma on sm_90a, fed through shared memory)
  matmul_desc  device-side tensor descriptors (tl.make_tensor_descriptor): on sm_90a the loads
               and the store go through TMA (cp.async.bulk.tensor), the descriptors are built
               in the kernel's global scratch memory; needs a row-major, contiguous layout

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_ptr(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tile_m = tl.program_id(0)
    tile_n = tl.program_id(1)
    rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)          # rows of C this program owns
    rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)          # columns of C this program owns
    rk = tl.arange(0, BLOCK_K)
    row_ok = rm < M
    col_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a_tile = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                         mask=row_ok[:, None] & (kk[None, :] < K), other=0.0)
        b_tile = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                         mask=(kk[:, None] < K) & col_ok[None, :], other=0.0)
        acc = tl.dot(a_tile, b_tile, acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def matmul_desc(a_ptr, b_ptr, c_ptr, M, N, K,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_view = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_view = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_view = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    row0 = tl.program_id(0) * BLOCK_M
    col0 = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        acc = tl.dot(a_view.load([row0, k0]), b_view.load([k0, col0]), acc)
    c_view.store([row0, col0], acc)


@triton.jit
def matmul_hostdesc(a_desc, b_desc, c_desc, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The descriptors come from the host (triton.tools.tensor_descriptor.TensorDescriptor): on
    # sm_90a each is a 128-byte CUtensorMap passed by value as a kernel parameter.
    row0 = tl.program_id(0) * BLOCK_M
    col0 = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        acc = tl.dot(a_desc.load([row0, k0]), b_desc.load([k0, col0]), acc)
    c_desc.store([row0, col0], acc)
