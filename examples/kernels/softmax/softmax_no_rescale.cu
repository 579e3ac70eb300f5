// BROKEN on purpose: online softmax that forgets the rescale factor exp(m_old - m_new) when the
// running maximum grows (both in the per-thread loop and in the tree merge). It is right
// whenever the maximum never changes after the first element, so tests with sorted-descending
// or constant rows pass; gpueq must say "different".
#define MAX_THREADS 128

extern "C" __global__ void softmax_no_rescale(const float* __restrict__ x, float* __restrict__ y,
                                              int n)
{
    __shared__ float sm[MAX_THREADS];
    __shared__ float sd[MAX_THREADS];
    const int t = threadIdx.x;

    float m = -INFINITY, d = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float v = x[i];
        m = fmaxf(m, v);
        d = d + expf(v - m);  // missing: d * expf(m_old - m)
    }
    sm[t] = m;
    sd[t] = d;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            sm[t] = fmaxf(sm[t], sm[t + stride]);
            sd[t] = sd[t] + sd[t + stride];  // missing: both rescaled to the new maximum
        }
        __syncthreads();
    }
    const float row_max = sm[0], denom = sd[0];

    for (int i = t; i < n; i += blockDim.x)
        y[i] = expf(x[i] - row_max) / denom;
}
