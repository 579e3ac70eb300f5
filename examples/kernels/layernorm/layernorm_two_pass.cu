// LayerNorm of one row, reference: mean by a shared-memory tree, then the biased variance
// sum (x - mean)^2 / n by a second tree, then y = (x - mean) * rsqrt(var + eps) * gamma + beta.
// Launch: one CTA per row, blockDim.x a power of two <= 128.
#define MAX_THREADS 128

__device__ float block_sum(float v, float* buf)
{
    const int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) buf[t] += buf[t + stride];
        __syncthreads();
    }
    const float total = buf[0];
    __syncthreads();  // buf is reused by the next call
    return total;
}

extern "C" __global__ void layernorm_two_pass(const float* __restrict__ x,
                                              const float* __restrict__ gamma,
                                              const float* __restrict__ beta,
                                              float* __restrict__ y, float eps, int n)
{
    __shared__ float buf[MAX_THREADS];
    const int t = threadIdx.x;

    float s = 0.0f;
    for (int i = t; i < n; i += blockDim.x) s += x[i];
    const float mean = block_sum(s, buf) / n;

    float q = 0.0f;
    for (int i = t; i < n; i += blockDim.x) {
        const float d = x[i] - mean;
        q += d * d;
    }
    const float var = block_sum(q, buf) / n;
    const float rstd = rsqrtf(var + eps);

    for (int i = t; i < n; i += blockDim.x)
        y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}
