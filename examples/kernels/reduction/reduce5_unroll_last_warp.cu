// Parallel sum reduction, version 5: as version 4, but the last six steps (stride <= 32) run
// without barriers inside the first warp through a volatile pointer, relying on the pre-Volta
// assumption that a warp executes in lockstep. Under independent thread scheduling (sm_70+) and
// the current PTX memory model these unsynchronized shared accesses are data races.
// blockDim.x a power of two, 64 <= blockDim.x <= 128.
#define MAX_THREADS 128

__device__ void warp_reduce_volatile(volatile float* s, unsigned t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

extern "C" __global__ void reduce5(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + blockDim.x < n) v += x[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) warp_reduce_volatile(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}
