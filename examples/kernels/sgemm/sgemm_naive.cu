// SGEMM ladder, step 1 (naive): C = alpha * A * B + beta * C with A (M x K), B (K x N), C (M x N)
// row-major. One thread per element of C; threadIdx.x walks rows, so consecutive threads read
// A and write C with a stride of K and N (uncoalesced). Launch: 16x16 blocks, grid (M/16, N/16).
extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha,
                                       const float* __restrict__ A, const float* __restrict__ B,
                                       float beta, float* __restrict__ C)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
