// The shuffle rewrite of version 7 over 32-bit integers: a grid-stride loop, per-warp
// __shfl_down_sync sums, warp sums exchanged through shared memory. Any blockDim.x that is a
// multiple of 32, at most 1024.
extern "C" __global__ void reduce7_shfl_int(const int* __restrict__ x, int* __restrict__ out, int n)
{
    __shared__ int warp_sums[32];
    const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int v = 0;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        v += x[i];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
