// Version 7 rewritten with warp shuffles: a grid-stride loop adds many values per thread, each
// warp reduces with __shfl_down_sync, lane 0 of each warp leaves its sum in shared memory, and
// the first warp reduces those. Any blockDim.x that is a multiple of 32, at most 1024.
extern "C" __global__ void reduce7_shfl(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float warp_sums[32];
    const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    float v = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        v += x[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
