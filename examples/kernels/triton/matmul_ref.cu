// Reference for the Triton matmul kernels (matmul.py): C = A * B with half A (M x K) and
// B (K x N), float accumulation, float C (M x N), all row-major and densely packed. One thread
// per element of C, consecutive threads on consecutive columns. Launch: 16x16 blocks, grid
// (N/16, M/16).
#include <cuda_fp16.h>

extern "C" __global__ void matmul_ref(const __half* __restrict__ A, const __half* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    float sum = 0.0f;
#pragma unroll 1
    for (int k = 0; k < K; ++k) sum += __half2float(A[i * K + k]) * __half2float(B[k * N + j]);
    C[i * N + j] = sum;
}
