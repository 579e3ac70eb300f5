// Parallel sum reduction, version 6: version 5 with the CTA size a compile-time constant, so
// every step is unrolled and the dead ones vanish. Keeps version 5's warp-synchronous tail and
// therefore its data races. Instantiated for 64 threads (128 values per CTA).
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
__device__ void reduce6_body(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * BLOCK) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s[t] = v;
    __syncthreads();
    if (BLOCK >= 1024) { if (t < 512) s[t] += s[t + 512]; __syncthreads(); }
    if (BLOCK >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
    if (t < 32) warp_reduce_volatile<BLOCK>(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce6(const float* __restrict__ x, float* __restrict__ out, int n)
{
    reduce6_body<64>(x, out, n);
}
