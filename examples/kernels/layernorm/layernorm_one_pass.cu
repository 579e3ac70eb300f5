// LayerNorm of one row in one pass over the data: sums of x and x^2 together, var = E[x^2] -
// mean^2. Numerically poor in float32 (catastrophic cancellation for rows with a large mean) but
// equal over the reals to the two-pass form. Launch: one CTA per row, blockDim.x a power of two
// <= 128.
#define MAX_THREADS 128

extern "C" __global__ void layernorm_one_pass(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta,
                                              float* __restrict__ y, float eps, int n)
{
    __shared__ float s1[MAX_THREADS];
    __shared__ float s2[MAX_THREADS];
    const int t = threadIdx.x;
    float a = 0.0f, b = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float v = x[i];
        a += v;
        b += v * v;
    }
    s1[t] = a;
    s2[t] = b;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s1[t] += s1[t + stride];
            s2[t] += s2[t + stride];
        }
        __syncthreads();
    }
    const float mean = s1[0] / n;
    const float var = s2[0] / n - mean * mean;
    const float rstd = rsqrtf(var + eps);
    for (int i = t; i < n; i += blockDim.x)
        y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}
