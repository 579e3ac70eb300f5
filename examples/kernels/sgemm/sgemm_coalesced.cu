// SGEMM ladder, step 2 (global-memory coalescing): the same one-thread-per-element kernel with a
// 1-D block of 256 threads mapped so that consecutive threads take consecutive columns: loads of
// B and the loads and stores of C are coalesced, A is a broadcast. Launch: 256 threads, grid
// (M/16, N/16), each block a 16x16 piece of C.
#define TILE 16

extern "C" __global__ void sgemm_coalesced(int M, int N, int K, float alpha,
                                           const float* __restrict__ A,
                                           const float* __restrict__ B, float beta,
                                           float* __restrict__ C)
{
    const int row = blockIdx.x * TILE + threadIdx.x / TILE;
    const int col = blockIdx.y * TILE + threadIdx.x % TILE;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
