// Parallel sum reduction, version 7: each thread first adds many values in a grid-stride loop
// (two per iteration), then version 6's unrolled tree with its warp-synchronous tail (racy).
// Instantiated for 64 threads (the tail reads s[t + 32], so the block needs at least 64): with
// 128 values each thread adds two before the tree.
template <unsigned BLOCK>
__device__ void warp_reduce_volatile(volatile float* s, unsigned t)
{
    if (BLOCK >= 64) s[t] += s[t + 32];
    if (BLOCK >= 32) s[t] += s[t + 16];
    if (BLOCK >= 16) s[t] += s[t + 8];
    if (BLOCK >= 8) s[t] += s[t + 4];
    if (BLOCK >= 4) s[t] += s[t + 2];
    if (BLOCK >= 2) s[t] += s[t + 1];
}

template <unsigned BLOCK>
__device__ void reduce7_body(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const unsigned grid_size = 2 * BLOCK * gridDim.x;
    float v = 0.0f;
    for (unsigned i = blockIdx.x * (2 * BLOCK) + t; i < n; i += grid_size) {
        v += x[i];
        if (i + BLOCK < n) v += x[i + BLOCK];
    }
    s[t] = v;
    __syncthreads();
    if (BLOCK >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
    if (t < 32) warp_reduce_volatile<BLOCK>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce7(const float* __restrict__ x, float* __restrict__ out, int n)
{
    reduce7_body<64>(x, out, n);
}
