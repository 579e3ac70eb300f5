// Softmax of one row with the online normalizer (Milakov & Gimelshein): each thread keeps a
// running maximum m and a running denominator d = sum exp(x - m) over its strided slice,
// rescaling d by exp(m_old - m_new) whenever the maximum grows; the per-thread pairs are merged
// by a shared-memory tree with the same rescaling. Launch: one CTA per row, blockDim.x a power
// of two <= 128. Also compiled with -use_fast_math (softmax_online_fast.ptx, __expf idiom).
#define MAX_THREADS 128

extern "C" __global__ void softmax_online(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float sm[MAX_THREADS];
    __shared__ float sd[MAX_THREADS];
    const int t = threadIdx.x;

    float m = -INFINITY, d = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float v = x[i];
        const float m_new = fmaxf(m, v);
        d = d * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    sm[t] = m;
    sd[t] = d;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            const float ma = sm[t], mb = sm[t + stride];
            const float mm = fmaxf(ma, mb);
            sd[t] = sd[t] * expf(ma - mm) + sd[t + stride] * expf(mb - mm);
            sm[t] = mm;
        }
        __syncthreads();
    }
    const float row_max = sm[0], denom = sd[0];

    for (int i = t; i < n; i += blockDim.x)
        y[i] = expf(x[i] - row_max) / denom;
}
