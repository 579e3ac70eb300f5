// Softmax of one row with the online normalizer in base 2, the way Triton's and FlashAttention's
// kernels write it: the scores are scaled by scale_log2e (log2 e times a softmax scale, a kernel
// argument like Triton's qk_scale) once, the running maximum m starts at
// -INFINITY and the running sum l at 0, and each step rescales l by exp2f(m - m_new). On a
// thread's first element m - m_new is -inf - x (x finite), so the factor is exp2f(-inf) = 0:
// gpueq must compute it as 0 on the extended reals (issue 21 item 9), not stop at "infinity
// times a symbolic value". The per-thread (m, l) pairs are merged by a shared-memory tree with
// the same rescaling. Launch: one CTA per row, blockDim.x a power of two <= 128, and n at least
// blockDim.x (a thread without an element would merge -inf - (-inf), which has no value).
#define MAX_THREADS 128

extern "C" __global__ void softmax_online_exp2(const float* __restrict__ x, float* __restrict__ y, int n, float scale_log2e)
{
    __shared__ float sm[MAX_THREADS];
    __shared__ float sl[MAX_THREADS];
    const int t = threadIdx.x;

    float m = -INFINITY, l = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float s = x[i] * scale_log2e;
        const float m_new = fmaxf(m, s);
        l = l * exp2f(m - m_new) + exp2f(s - m_new);
        m = m_new;
    }
    sm[t] = m;
    sl[t] = l;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            const float ma = sm[t], mb = sm[t + stride];
            const float mm = fmaxf(ma, mb);
            sl[t] = sl[t] * exp2f(ma - mm) + sl[t + stride] * exp2f(mb - mm);
            sm[t] = mm;
        }
        __syncthreads();
    }
    const float row_max = sm[0], denom = sl[0];

    for (int i = t; i < n; i += blockDim.x)
        y[i] = exp2f(x[i] * scale_log2e - row_max) / denom;
}
