// Mixed-precision GEMM reference for the tensor-core kernels: C = alpha * A * B + beta * C with
// half A (M x K) and B (K x N), float accumulation and float C, all row-major. One thread per
// element of C, consecutive threads on consecutive columns. Launch: 16x16 blocks, grid
// (N/16, M/16).
#include <cuda_fp16.h>

extern "C" __global__ void hgemm_naive(int M, int N, int K, float alpha,
                                       const __half* __restrict__ A,
                                       const __half* __restrict__ B, float beta,
                                       float* __restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
