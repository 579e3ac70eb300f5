// Version 6 rewritten with warp shuffles: after the shared-memory steps down to 64 partial sums,
// the first warp adds its two halves and finishes with __shfl_down_sync; no shared memory is
// touched without a barrier. Compile-time CTA size 64 (128 values per CTA).
template <unsigned BLOCK>
__device__ void reduce6_shfl_body(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[BLOCK];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * BLOCK) + t;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s[t] = v;
    __syncthreads();
    if (BLOCK >= 512) { if (t < 256) s[t] = v = v + s[t + 256]; __syncthreads(); }
    if (BLOCK >= 256) { if (t < 128) s[t] = v = v + s[t + 128]; __syncthreads(); }
    if (BLOCK >= 128) { if (t < 64) s[t] = v = v + s[t + 64]; __syncthreads(); }
    if (t < 32) {
        if (BLOCK >= 64) v += s[t + 32];
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (t == 0) out[blockIdx.x] = v;
    }
}

extern "C" __global__ void reduce6_shfl(const float* __restrict__ x, float* __restrict__ out, int n)
{
    reduce6_shfl_body<64>(x, out, n);
}
