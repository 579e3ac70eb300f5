// Parallel sum reduction, version 2: interleaved addressing with a strided index, so the active
// threads are contiguous (no divergence within a warp, but shared-memory bank conflicts).
#define MAX_THREADS 128

extern "C" __global__ void reduce2(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned k = 2 * stride * t;
        if (k < blockDim.x)
            s[k] += s[k + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
