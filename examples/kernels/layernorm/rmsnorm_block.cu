// RMSNorm of one row, reference: y = x * rsqrt(mean(x^2) + eps) * gamma, the sum of squares by
// a shared-memory tree. Launch: one CTA per row, blockDim.x a power of two <= 128.
#define MAX_THREADS 128

extern "C" __global__ void rmsnorm_block(const float* __restrict__ x,
                                         const float* __restrict__ gamma, float* __restrict__ y,
                                         float eps, int n)
{
    __shared__ float buf[MAX_THREADS];
    const int t = threadIdx.x;
    float q = 0.0f;
    for (int i = t; i < n; i += blockDim.x) q += x[i] * x[i];
    buf[t] = q;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) buf[t] += buf[t + stride];
        __syncthreads();
    }
    const float rrms = rsqrtf(buf[0] / n + eps);
    for (int i = t; i < n; i += blockDim.x)
        y[i] = x[i] * rrms * gamma[i];
}
