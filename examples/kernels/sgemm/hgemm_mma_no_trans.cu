// BROKEN on purpose: the mma.sync + ldmatrix GEMM of hgemm_mma_no_trans.cu with the B fragments loaded
// by ldmatrix without .trans. B is stored row-major (k rows, n columns) in shared memory, but the
// col operand of mma.m16n8k16 wants each lane's register to hold two consecutive k of one n;
// without .trans it holds two consecutive n of one k, so the kernel computes with a scrambled B
// (a classic layout bug of tensor-core code; it passes tests whose B is symmetric per 8x8 block,
// e.g. all-ones). gpueq must say "different".
#include <cuda_fp16.h>
#include <stdint.h>

#define BM 64
#define BN 64
#define BK 32
#define THREADS 128

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem)
{
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1)
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void hgemm_mma_no_trans(int M, int N, int K, float alpha,
                                     const __half* __restrict__ A,
                                     const __half* __restrict__ B, float beta,
                                     float* __restrict__ C)
{
    __shared__ __align__(16) __half As[BM][BK];
    __shared__ __align__(16) __half Bs[BK][BN];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
    const __half* Ab = A + blockIdx.y * BM * K;
    const __half* Bb = B + blockIdx.x * BN;

    float acc[2][4][4] = {};
#pragma unroll 1
    for (int k0 = 0; k0 < K; k0 += BK) {
        // 64x32 halves of A and 32x64 of B: 256 chunks of 8 halves each, two per thread
#pragma unroll
        for (int e = t; e < BM * BK / 8; e += THREADS) {
            const int r = e / (BK / 8), c = (e % (BK / 8)) * 8;
            *reinterpret_cast<uint4*>(&As[r][c]) =
                *reinterpret_cast<const uint4*>(&Ab[r * K + k0 + c]);
        }
#pragma unroll
        for (int e = t; e < BK * BN / 8; e += THREADS) {
            const int r = e / (BN / 8), c = (e % (BN / 8)) * 8;
            *reinterpret_cast<uint4*>(&Bs[r][c]) =
                *reinterpret_cast<const uint4*>(&Bb[(k0 + r) * N + c]);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            uint32_t a[2][4], b[2][4];
#pragma unroll
            for (int i = 0; i < 2; ++i)
                ldmatrix_x4(a[i], &As[wm + i * 16 + lane % 16][kk + (lane / 16) * 8]);
#pragma unroll
            for (int j = 0; j < 2; ++j)
                ldmatrix_x4(b[j], &Bs[kk + lane % 16][wn + j * 16 + (lane / 16) * 8]);  // needs .trans
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    mma_16816(acc[i][j], a[i], b[j / 2][(j % 2) * 2], b[j / 2][(j % 2) * 2 + 1]);
        }
        __syncthreads();
    }

    const int g = lane / 4, tig = lane % 4;
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = blockIdx.y * BM + wm + i * 16 + g + h * 8;
                const int c = blockIdx.x * BN + wn + j * 8 + tig * 2;
                float2* cp = reinterpret_cast<float2*>(&C[r * N + c]);
                const float2 old = *cp;
                *cp = make_float2(alpha * acc[i][j][2 * h] + beta * old.x,
                                  alpha * acc[i][j][2 * h + 1] + beta * old.y);
            }
}
