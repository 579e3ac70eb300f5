// BROKEN on purpose: the shared-memory tiled SGEMM of sgemm_smem_no_sync.cu without the barrier at the
// end of each K step, so a fast warp overwrites As/Bs with the next tile while other warps still
// read the current one: a write-after-read race between warps.
// Launch: 256 threads, grid (M/16, N/16); M, N, K multiples of 16.
#define TILE 16

extern "C" __global__ void sgemm_smem_no_sync(int M, int N, int K, float alpha,
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
        // missing: __syncthreads();
    }
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
