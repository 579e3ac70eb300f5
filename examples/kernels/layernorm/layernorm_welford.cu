// LayerNorm of one row with Welford's single-pass update per thread (count, mean, M2) and
// Chan's pairwise merge in a shared-memory tree: mean = ma + delta * nb / n,
// M2 = M2a + M2b + delta^2 * na * nb / n. Over the reals this is exactly the two-pass mean and
// variance. Counts are integers, so the empty-partner test is not data dependent.
// Launch: one CTA per row, blockDim.x a power of two <= 128.
#define MAX_THREADS 128

extern "C" __global__ void layernorm_welford(const float* __restrict__ x,
                                             const float* __restrict__ gamma,
                                             const float* __restrict__ beta,
                                             float* __restrict__ y, float eps, int n)
{
    __shared__ float s_mean[MAX_THREADS];
    __shared__ float s_m2[MAX_THREADS];
    __shared__ int s_count[MAX_THREADS];
    const int t = threadIdx.x;

    int count = 0;
    float mean = 0.0f, m2 = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float v = x[i];
        ++count;
        const float delta = v - mean;
        mean += delta / (float)count;
        m2 += delta * (v - mean);
    }
    s_mean[t] = mean;
    s_m2[t] = m2;
    s_count[t] = count;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            const int na = s_count[t], nb = s_count[t + stride];
            if (nb > 0) {
                const int nab = na + nb;
                const float delta = s_mean[t + stride] - s_mean[t];
                s_mean[t] += delta * ((float)nb / (float)nab);
                s_m2[t] += s_m2[t + stride] + delta * delta * ((float)na * (float)nb / (float)nab);
                s_count[t] = nab;
            }
        }
        __syncthreads();
    }
    const float row_mean = s_mean[0];
    const float rstd = rsqrtf(s_m2[0] / (float)s_count[0] + eps);

    for (int i = t; i < n; i += blockDim.x)
        y[i] = (x[i] - row_mean) * rstd * gamma[i] + beta[i];
}
