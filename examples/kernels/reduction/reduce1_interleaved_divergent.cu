// Parallel sum reduction, version 1 of the classic ladder: interleaved addressing, where the
// active threads are those whose index is a multiple of 2*stride (highly divergent warps).
// One CTA sums blockDim.x values (a power of two <= 128) of x into out[blockIdx.x].
#define MAX_THREADS 128

extern "C" __global__ void reduce1(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
