// Version 5 done right for independent thread scheduling: the last-warp steps read, then
// __syncwarp, then write, then __syncwarp, so every shared access is ordered within the warp.
// blockDim.x a power of two, 64 <= blockDim.x <= 128.
#define MAX_THREADS 128

extern "C" __global__ void reduce5_syncwarp(const float* __restrict__ x, float* __restrict__ out,
                                            int n)
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
    if (t < 32) {
        v = s[t];
        for (unsigned stride = 32; stride > 0; stride >>= 1) {
            v += s[t + stride];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
