// SGEMM ladder, step 5 (2-D register blocking): a 64x64 block tile, K in steps of 8; each of the
// 256 threads computes a 4x4 sub-tile as an outer product of 4 A values and 4 B values held in
// registers. Launch: 256 threads, grid (N/64, M/64); M, N multiples of 64, K a multiple of 8.
#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4
#define THREADS (BM * BN / (TM * TN))

extern "C" __global__ void sgemm_2d_blocktile(int M, int N, int K, float alpha,
                                              const float* __restrict__ A,
                                              const float* __restrict__ B, float beta,
                                              float* __restrict__ C)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int trow = t / (BN / TN), tcol = t % (BN / TN);
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_reg[TM], b_reg[TN];
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int e = t; e < BM * BK; e += THREADS)
            As[e] = Ab[(e / BK) * K + k0 + e % BK];
#pragma unroll
        for (int e = t; e < BK * BN; e += THREADS)
            Bs[e] = Bb[(k0 + e / BN) * N + e % BN];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[(trow * TM + i) * BK + kk];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[kk * BN + tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int r = blockIdx.y * BM + trow * TM + i, c = blockIdx.x * BN + tcol * TN + j;
            C[r * N + c] = alpha * acc[i][j] + beta * C[r * N + c];
        }
}
