"""Attention forward for one head in Triton: O = softmax(scale * Q K^T) V with Q (n_q x D),
K and V (n_kv x D) half precision and O (n_q x D) float32. One program per BLOCK_M queries
(grid (n_q / BLOCK_M,)); the loop walks BLOCK_N keys at a time keeping, per query row, a running
maximum m, a running denominator l and an unnormalized output accumulator, rescaled by
exp(m_old - m_new) whenever the maximum grows (online softmax); O = acc / l at the end.
P is rounded to half before the second tl.dot, as fused attention kernels do.

Written for gpueq's corpus (examples/kernels/triton/README.md); regen.py compiles it.
"""
import triton
import triton.language as tl


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, n_q, n_kv, scale,
                  stride_q, stride_k, stride_v, stride_o,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr):
    qrows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_D)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + qrows[:, None] * stride_q + dims[None, :], mask=qrows[:, None] < n_q, other=0.0)

    m_run = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_run = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), dtype=tl.float32)
    for start in range(0, n_kv, BLOCK_N):
        kv = start + keys
        kv_ok = kv < n_kv
        # K^T tile: HEAD_D x BLOCK_N
        kt = tl.load(k_ptr + kv[None, :] * stride_k + dims[:, None], mask=kv_ok[None, :], other=0.0)
        s = tl.dot(q, kt) * scale
        s = tl.where(kv_ok[None, :], s, -float("inf"))
        m_new = tl.maximum(m_run, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_run - m_new)
        l_run = l_run * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv[:, None] * stride_v + dims[None, :], mask=kv_ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_run = m_new
    o = acc / l_run[:, None]
    tl.store(o_ptr + qrows[:, None] * stride_o + dims[None, :], o, mask=qrows[:, None] < n_q)
