// 2-D convolution as an implicit GEMM on tensor cores, with cp.async double buffering.
// The GEMM: M = OH*OW = 64 output pixels, N = K = 32 output channels, reduction over
// (r, s, c) = 9 steps of 16 channels. Step t = (r, s): the A tile (64 pixels x 16 channels) is
// row p = X[oh + r][ow + s][0..15], 32 contiguous bytes of the NHWC input (im2col without
// materializing it); the B tile (16 x 32) is W[k][r][s][0..15] for every k, stored as
// [k][c] = a column-major 16x32 matrix. Both are copied with 16-byte cp.async into one of two
// shared buffers while the previous step's tiles feed wmma 16x16x16 (half in, float
// accumulators). Each thread waits for its own copies (cp.async.wait_group), then the CTA
// barrier makes every thread's copies visible to all. 4 warps: warp w owns output pixels
// 16w..16w+15 and both 16-channel halves. Launch: 128 threads, one CTA.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define H 10
#define WD 10
#define C 16
#define KOUT 32
#define R 3
#define S 3
#define OH (H - R + 1)
#define OW (WD - S + 1)
#define PIX (OH * OW)
#define STEPS (R * S)

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem)
{
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void load_step(__half (*As)[C], __half (*Bs)[C], const __half* X,
                                          const __half* W, int step)
{
    const int t = threadIdx.x, r = step / S, s = step % S;
    {   // A: 64 rows x 2 chunks of 8 halves = 128 chunks, one per thread
        const int p = t / 2, half8 = (t % 2) * 8, oh = p / OW, ow = p % OW;
        cp_async16(&As[p][half8], &X[((oh + r) * WD + ow + s) * C + half8]);
    }
    if (t < KOUT * 2) {  // B: 32 rows x 2 chunks = 64 chunks
        const int k = t / 2, half8 = (t % 2) * 8;
        cp_async16(&Bs[k][half8], &W[((k * R + r) * S + s) * C + half8]);
    }
}

extern "C" __global__ void conv_implicit_gemm(const __half* __restrict__ X,
                                              const __half* __restrict__ W,
                                              float* __restrict__ Y)
{
    __shared__ __align__(128) __half As[2][PIX][C];
    __shared__ __align__(128) __half Bs[2][KOUT][C];
    const int warp = threadIdx.x / 32;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::fill_fragment(acc[0], 0.0f);
    wmma::fill_fragment(acc[1], 0.0f);

    load_step(As[0], Bs[0], X, W, 0);
    cp_async_commit();
#pragma unroll 1
    for (int step = 0; step < STEPS; ++step) {
        const int buf = step % 2;
        if (step + 1 < STEPS) {
            load_step(As[buf ^ 1], Bs[buf ^ 1], X, W, step + 1);
            cp_async_commit();
            cp_async_wait<1>();  // this thread's copies for `step` have landed
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();  // ... and every other thread's too

        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::load_matrix_sync(a, &As[buf][warp * 16][0], C);
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
            wmma::load_matrix_sync(b, &Bs[buf][j * 16][0], C);
            wmma::mma_sync(acc[j], a, b, acc[j]);
        }
        __syncthreads();  // buffer `buf` is refilled at step + 2
    }
#pragma unroll
    for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(&Y[(warp * 16) * KOUT + j * 16], acc[j], KOUT, wmma::mem_row_major);
}
