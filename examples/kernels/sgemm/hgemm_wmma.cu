// Tensor-core GEMM with the WMMA API: a 64x64 block tile, 4 warps each owning a 32x32 warp tile
// of 2x2 accumulator fragments (16x16x16, half inputs, float accumulators), loading A and B
// fragments straight from global memory; the epilogue loads the C fragment and applies
// alpha and beta element-wise (accumulator fragments of one shape share a layout).
// Launch: 128 threads, grid (N/64, M/64); M, N multiples of 64, K a multiple of 16.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void hgemm_wmma(int M, int N, int K, float alpha,
                                      const __half* __restrict__ A,
                                      const __half* __restrict__ B, float beta,
                                      float* __restrict__ C)
{
    const int warp = threadIdx.x / 32;
    const int row0 = blockIdx.y * 64 + (warp / 2) * 32;
    const int col0 = blockIdx.x * 64 + (warp % 2) * 32;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

#pragma unroll 1
    for (int k = 0; k < K; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
#pragma unroll
        for (int i = 0; i < 2; ++i)
            wmma::load_matrix_sync(a[i], A + (row0 + i * 16) * K + k, K);
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::load_matrix_sync(b[j], B + k * N + col0 + j * 16, N);
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }

#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            float* cp = C + (row0 + i * 16) * N + col0 + j * 16;
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
            wmma::load_matrix_sync(c, cp, N, wmma::mem_row_major);
#pragma unroll
            for (int e = 0; e < c.num_elements; ++e) c.x[e] = alpha * acc[i][j].x[e] + beta * c.x[e];
            wmma::store_matrix_sync(cp, c, N, wmma::mem_row_major);
        }
}
