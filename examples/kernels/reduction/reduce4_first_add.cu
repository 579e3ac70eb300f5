// Parallel sum reduction, version 4: the first addition happens during the global load, so a
// CTA of blockDim.x threads sums 2 * blockDim.x values; then sequential addressing.
#define MAX_THREADS 128

extern "C" __global__ void reduce4(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
