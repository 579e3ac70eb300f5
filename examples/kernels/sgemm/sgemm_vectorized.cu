// SGEMM ladder, step 6 (vectorized memory access): the 2-D register-blocked kernel (64x64 tile,
// 4x4 per thread, 256 threads) with K in steps of 16 and every global access 128 bits wide:
// each thread loads one float4 of A, stored transposed (As[k][m]) so the compute loop reads A
// columns as float4 too, and one float4 of B; C is read and written as float4.
// Launch: 256 threads, grid (N/64, M/64); M, N multiples of 64, K a multiple of 16,
// A, B, C 16-byte aligned.
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

extern "C" __global__ void sgemm_vectorized(int M, int N, int K, float alpha,
                                            const float* __restrict__ A,
                                            const float* __restrict__ B, float beta,
                                            float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK * BM];
    __shared__ __align__(16) float Bs[BK * BN];
    const int t = threadIdx.x;
    const int trow = t / (BN / TN), tcol = t % (BN / TN);
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;
    const int a_row = t / (BK / 4), a_col = (t % (BK / 4)) * 4;
    const int b_row = t / (BN / 4), b_col = (t % (BN / 4)) * 4;

    float acc[TM][TN] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&Ab[a_row * K + k0 + a_col]);
        As[(a_col + 0) * BM + a_row] = a.x;
        As[(a_col + 1) * BM + a_row] = a.y;
        As[(a_col + 2) * BM + a_row] = a.z;
        As[(a_col + 3) * BM + a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_row * BN + b_col]) =
            *reinterpret_cast<const float4*>(&Bb[(k0 + b_row) * N + b_col]);
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < BK; ++kk) {
            const float4 av = *reinterpret_cast<const float4*>(&As[kk * BM + trow * TM]);
            const float4 bv = *reinterpret_cast<const float4*>(&Bs[kk * BN + tcol * TN]);
            const float a_reg[TM] = {av.x, av.y, av.z, av.w};
            const float b_reg[TN] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = blockIdx.y * BM + trow * TM + i, c = blockIdx.x * BN + tcol * TN;
        float4* cp = reinterpret_cast<float4*>(&C[r * N + c]);
        const float4 old = *cp;
        *cp = make_float4(alpha * acc[i][0] + beta * old.x, alpha * acc[i][1] + beta * old.y,
                          alpha * acc[i][2] + beta * old.z, alpha * acc[i][3] + beta * old.w);
    }
}
