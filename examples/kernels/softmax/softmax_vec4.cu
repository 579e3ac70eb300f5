// Softmax of one row with float4 loads and stores: each thread handles strided groups of four
// (n a multiple of 4, x and y 16-byte aligned), two passes (maximum, then sum of exponentials),
// each reduced first within the warp by __shfl_xor_sync and then across warps in shared memory.
// Launch: one CTA per row, blockDim.x a multiple of 32, at most 256.
#define MAX_WARPS 8

__device__ float warp_max(float v)
{
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void softmax_vec4(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float red[MAX_WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, warps = blockDim.x >> 5;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    const int n4 = n / 4;

    float m = -INFINITY;
    for (int i = t; i < n4; i += blockDim.x) {
        const float4 v = x4[i];
        m = fmaxf(fmaxf(m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
    }
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < warps; ++w) m = fmaxf(m, red[w]);
    __syncthreads();  // red is reused below

    float s = 0.0f;
    for (int i = t; i < n4; i += blockDim.x) {
        const float4 v = x4[i];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    float denom = red[0];
    for (int w = 1; w < warps; ++w) denom += red[w];

    const float inv = 1.0f / denom;
    for (int i = t; i < n4; i += blockDim.x) {
        const float4 v = x4[i];
        y4[i] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv,
                            expf(v.w - m) * inv);
    }
}
