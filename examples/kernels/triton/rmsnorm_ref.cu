// Reference for the Triton RMSNorm (rmsnorm.py): y[r][c] = x[r][c] * rsqrt(mean_j x[r][j]^2 + eps)
// * w[c], x and y half, w float, computed in float. One thread per row.
// Launch: grid (rows), 1 thread.
#include <cuda_fp16.h>

extern "C" __global__ void rmsnorm_ref(const __half* __restrict__ x, const float* __restrict__ w,
                                       __half* __restrict__ y, float eps, int n)
{
    const __half* row = x + blockIdx.x * n;
    __half* out = y + blockIdx.x * n;
    float sum = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; ++j) {
        const float v = __half2float(row[j]);
        sum += v * v;
    }
    const float r = rsqrtf(sum / n + eps);
#pragma unroll 1
    for (int j = 0; j < n; ++j) out[j] = __float2half(__half2float(row[j]) * r * w[j]);
}
