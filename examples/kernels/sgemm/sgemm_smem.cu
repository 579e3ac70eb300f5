// SGEMM ladder, step 3 (shared-memory cache blocking): each block stages 16x16 tiles of A and B
// in shared memory and every thread computes one element of its 16x16 piece of C from them.
// Launch: 256 threads, grid (M/16, N/16); M, N, K multiples of 16.
#define TILE 16

extern "C" __global__ void sgemm_smem(int M, int N, int K, float alpha,
                                      const float* __restrict__ A, const float* __restrict__ B,
                                      float beta, float* __restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int ty = threadIdx.x / TILE, tx = threadIdx.x % TILE;
    const int row = blockIdx.x * TILE + ty, col = blockIdx.y * TILE + tx;
    float acc = 0.0f;
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk)
            acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
