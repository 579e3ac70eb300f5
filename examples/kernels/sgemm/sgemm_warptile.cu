// SGEMM ladder, step 8 (warp tiling): a 64x64 block tile computed by 4 warps, each owning a
// 32x32 warp tile that it walks as 2x2 sub-tiles of 16x16; within a sub-tile the 32 lanes form a
// 4x8 grid and each lane computes 4x2 results, so a lane holds 2*2*4*2 = 32 accumulators.
// K in steps of 16; tiles are loaded with float4 (A stored transposed). Launch: 128 threads,
// grid (N/64, M/64); M, N multiples of 64, K a multiple of 16, 16-byte aligned A, B, C.
#define BM 64
#define BN 64
#define BK 16
#define WM 32
#define WN 32
#define WITER_M 2
#define WITER_N 2
#define TM 4
#define TN 2
#define THREADS 128

extern "C" __global__ void sgemm_warptile(int M, int N, int K, float alpha,
                                          const float* __restrict__ A,
                                          const float* __restrict__ B, float beta,
                                          float* __restrict__ C)
{
    __shared__ __align__(16) float As[BK * BM];
    __shared__ __align__(16) float Bs[BK * BN];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int lm = lane / 8, ln = lane % 8;  // 4 x 8 lanes per 16x16 sub-tile
    const float* Ab = A + blockIdx.y * BM * K;
    const float* Bb = B + blockIdx.x * BN;

    float acc[WITER_M][WITER_N][TM][TN] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int e = t; e < BM * BK / 4; e += THREADS) {
            const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
            const float4 a = *reinterpret_cast<const float4*>(&Ab[r * K + k0 + c]);
            As[(c + 0) * BM + r] = a.x;
            As[(c + 1) * BM + r] = a.y;
            As[(c + 2) * BM + r] = a.z;
            As[(c + 3) * BM + r] = a.w;
        }
#pragma unroll
        for (int e = t; e < BK * BN / 4; e += THREADS) {
            const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r * BN + c]) =
                *reinterpret_cast<const float4*>(&Bb[(k0 + r) * N + c]);
        }
        __syncthreads();
#pragma unroll 2
        for (int kk = 0; kk < BK; ++kk) {
            float a_reg[WITER_M][TM], b_reg[WITER_N][TN];
#pragma unroll
            for (int wi = 0; wi < WITER_M; ++wi) {
                const float4 v =
                    *reinterpret_cast<const float4*>(&As[kk * BM + wm + wi * 16 + lm * TM]);
                a_reg[wi][0] = v.x; a_reg[wi][1] = v.y; a_reg[wi][2] = v.z; a_reg[wi][3] = v.w;
            }
#pragma unroll
            for (int wj = 0; wj < WITER_N; ++wj) {
                const float2 v =
                    *reinterpret_cast<const float2*>(&Bs[kk * BN + wn + wj * 16 + ln * TN]);
                b_reg[wj][0] = v.x; b_reg[wj][1] = v.y;
            }
#pragma unroll
            for (int wi = 0; wi < WITER_M; ++wi)
#pragma unroll
                for (int wj = 0; wj < WITER_N; ++wj)
#pragma unroll
                    for (int i = 0; i < TM; ++i)
#pragma unroll
                        for (int j = 0; j < TN; ++j)
                            acc[wi][wj][i][j] += a_reg[wi][i] * b_reg[wj][j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int wi = 0; wi < WITER_M; ++wi)
#pragma unroll
        for (int wj = 0; wj < WITER_N; ++wj)
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const int r = blockIdx.y * BM + wm + wi * 16 + lm * TM + i;
                const int c = blockIdx.x * BN + wn + wj * 16 + ln * TN;
                float2* cp = reinterpret_cast<float2*>(&C[r * N + c]);
                const float2 old = *cp;
                *cp = make_float2(alpha * acc[wi][wj][i][0] + beta * old.x,
                                  alpha * acc[wi][wj][i][1] + beta * old.y);
            }
}
