// LayerNorm of one row by a single warp: two passes over the row, each reduced with
// __shfl_xor_sync butterflies so every lane holds the mean and the variance; no shared memory.
// Launch: one warp per row.
__device__ float warp_allreduce_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void layernorm_warp(const float* __restrict__ x,
                                          const float* __restrict__ gamma,
                                          const float* __restrict__ beta, float* __restrict__ y,
                                          float eps, int n)
{
    const int lane = threadIdx.x & 31;
    float s = 0.0f;
    for (int i = lane; i < n; i += 32) s += x[i];
    const float mean = warp_allreduce_sum(s) / n;

    float q = 0.0f;
    for (int i = lane; i < n; i += 32) {
        const float d = x[i] - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(warp_allreduce_sum(q) / n + eps);

    for (int i = lane; i < n; i += 32)
        y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}
