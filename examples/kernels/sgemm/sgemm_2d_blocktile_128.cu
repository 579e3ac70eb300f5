// SGEMM ladder, the large-tile configuration: 2-D register blocking with a 128x128 block tile,
// K in steps of 8, 512 threads each computing an 8x4 sub-tile (8 A values and 4 B values in
// registers per step). Launch: 512 threads, grid (N/128, M/128); M, N multiples of 128,
// K a multiple of 8.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 4
#define THREADS (BM * BN / (TM * TN))

extern "C" __global__ void sgemm_2d_blocktile_128(int M, int N, int K, float alpha,
                                                  const float* __restrict__ A,
                                                  const float* __restrict__ B, float beta,
                                                  float* __restrict__ C)
{
    __shared__ float As[BK][BM];  // transposed: As[k][m]
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int trow = t / (BN / TN), tcol = t % (BN / TN);  // 16 x 32 threads
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_reg[TM], b_reg[TN];
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int e = t; e < BM * BK; e += THREADS)
            As[e % BK][e / BK] = Ab[(e / BK) * K + k0 + e % BK];
#pragma unroll
        for (int e = t; e < BK * BN; e += THREADS)
            Bs[e / BN][e % BN] = Bb[(k0 + e / BN) * N + e % BN];
        __syncthreads();
#pragma unroll 2
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[kk][trow * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[kk][tcol * TN + j];
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
