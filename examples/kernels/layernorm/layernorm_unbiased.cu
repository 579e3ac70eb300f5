// BROKEN on purpose (for LayerNorm): the warp kernel with the unbiased variance, dividing by
// n - 1 instead of n (torch.var's default, not LayerNorm's). Off by a factor sqrt(n / (n - 1))
// before the affine part, about 0.2% for n = 256: under many tests' tolerances. gpueq must say
// "different".
__device__ float warp_allreduce_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void layernorm_unbiased(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta,
                                              float* __restrict__ y, float eps, int n)
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
    const float rstd = rsqrtf(warp_allreduce_sum(q) / (n - 1) + eps);  // should be / n

    for (int i = lane; i < n; i += 32)
        y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}
