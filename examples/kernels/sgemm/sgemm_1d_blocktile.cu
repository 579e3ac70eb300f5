// SGEMM ladder, step 4 (1-D register blocking): a 64x64 block tile, K in steps of 8; each of
// the 512 threads computes a column strip of 8 results (TM = 8), reusing one B value from a
// register for 8 multiply-adds. Launch: 512 threads, grid (N/64, M/64); M, N multiples of 64,
// K a multiple of 8.
#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void sgemm_1d_blocktile(int M, int N, int K, float alpha,
                                              const float* __restrict__ A,
                                              const float* __restrict__ B, float beta,
                                              float* __restrict__ C)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int tcol = t % BN, trow = t / BN;  // trow in [0, 8): rows trow*TM .. trow*TM+7
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;
    const int a_row = t / BK, a_col = t % BK;  // 64 x 8 tile of A: one value per thread
    const int b_row = t / BN, b_col = t % BN;  // 8 x 64 tile of B: one value per thread

    float acc[TM] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_row * BK + a_col] = Ab[a_row * K + k0 + a_col];
        Bs[b_row * BN + b_col] = Bb[(k0 + b_row) * N + b_col];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float b = Bs[kk * BN + tcol];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] += As[(trow * TM + i) * BK + kk] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = blockIdx.y * BM + trow * TM + i, c = blockIdx.x * BN + tcol;
        C[r * N + c] = alpha * acc[i] + beta * C[r * N + c];
    }
}
