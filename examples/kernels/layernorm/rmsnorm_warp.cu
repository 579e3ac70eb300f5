// RMSNorm of one row, optimized: float4 loads, per-warp __shfl_xor_sync sums, the warp sums
// combined through shared memory, and the reciprocal RMS computed once by thread 0 and broadcast.
// n a multiple of 4, blockDim.x a multiple of 32 (at most 256).
#define MAX_WARPS 8

extern "C" __global__ void rmsnorm_warp(const float* __restrict__ x,
                                        const float* __restrict__ gamma, float* __restrict__ y,
                                        float eps, int n)
{
    __shared__ float warp_sums[MAX_WARPS];
    __shared__ float rrms;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    float4* y4 = reinterpret_cast<float4*>(y);

    float q = 0.0f;
    for (int i = t; i < n / 4; i += blockDim.x) {
        const float4 v = x4[i];
        q += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    for (int offset = 16; offset > 0; offset /= 2)
        q += __shfl_xor_sync(0xffffffffu, q, offset);
    if (lane == 0) warp_sums[warp] = q;
    __syncthreads();
    if (t == 0) {
        float total = 0.0f;
        for (int w = 0; w < (int)(blockDim.x / 32); ++w) total += warp_sums[w];
        rrms = rsqrtf(total / n + eps);
    }
    __syncthreads();
    const float r = rrms;
    for (int i = t; i < n / 4; i += blockDim.x) {
        const float4 v = x4[i], g = g4[i];
        y4[i] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
    }
}
