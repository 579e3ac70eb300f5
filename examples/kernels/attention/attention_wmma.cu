// Attention on tensor cores (WMMA 16x16x16, half inputs, float accumulators), FlashAttention
// style: K and V tiles of 64 rows are staged in shared memory with 128-bit loads; warp w computes
// the 16x16 score block of keys 16w..16w+15 (S = Q K^T, K read as a column-major B operand);
// one thread per query row updates the running maximum and sum and writes P = exp(S - m) as half;
// every thread rescales the shared output accumulator by exp(m_old - m_new); warp w then adds
// P V for output columns 16w..16w+15 (accumulator loaded from and stored back to shared memory,
// since a fragment's element-to-row mapping is opaque). The division by the row sum is deferred
// to the end. Launch: 128 threads, nq <= 16, nkv a multiple of 64, head dimension 64.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define D 64
#define BR 16
#define BC 64
#define THREADS 128

extern "C" __global__ void attention_wmma(const __half* __restrict__ Q,
                                          const __half* __restrict__ K,
                                          const __half* __restrict__ V, float* __restrict__ O,
                                          int nq, int nkv, float scale)
{
    __shared__ __align__(32) __half Qs[BR][D];
    __shared__ __align__(32) __half Ks[BC][D];
    __shared__ __align__(32) __half Vs[BC][D];
    __shared__ __align__(32) __half Ps[BR][BC];
    __shared__ __align__(32) float Ss[BR][BC];
    __shared__ __align__(32) float Os[BR][D];
    __shared__ float row_m[BR], row_l[BR], row_alpha[BR];
    const int t = threadIdx.x, warp = t / 32;

    for (int e = t; e < BR * D; e += THREADS) {
        Qs[e / D][e % D] = e / D < nq ? Q[e] : __float2half(0.0f);
        Os[e / D][e % D] = 0.0f;
    }
    if (t < BR) {
        row_m[t] = -INFINITY;
        row_l[t] = 0.0f;
    }

#pragma unroll 1
    for (int j0 = 0; j0 < nkv; j0 += BC) {
        // K and V tiles: 64 x 64 halves each = 512 chunks of 8 halves, four per thread
        for (int e = t; e < BC * D / 8; e += THREADS) {
            const int r = e / (D / 8), c = (e % (D / 8)) * 8;
            *reinterpret_cast<uint4*>(&Ks[r][c]) = *reinterpret_cast<const uint4*>(&K[(j0 + r) * D + c]);
            *reinterpret_cast<uint4*>(&Vs[r][c]) = *reinterpret_cast<const uint4*>(&V[(j0 + r) * D + c]);
        }
        __syncthreads();

        {   // S[:, 16w .. 16w+15] = Q K^T
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
            wmma::fill_fragment(s, 0.0f);
#pragma unroll
            for (int kk = 0; kk < D; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
                wmma::load_matrix_sync(a, &Qs[0][kk], D);
                wmma::load_matrix_sync(b, &Ks[warp * 16][kk], D);
                wmma::mma_sync(s, a, b, s);
            }
            wmma::store_matrix_sync(&Ss[0][warp * 16], s, BC, wmma::mem_row_major);
        }
        __syncthreads();

        if (t < BR) {  // online softmax statistics, one thread per query row
            const float m_old = row_m[t];
            float m_new = m_old;
            for (int j = 0; j < BC; ++j) m_new = fmaxf(m_new, Ss[t][j] * scale);
            float l_tile = 0.0f;
            for (int j = 0; j < BC; ++j) {
                const __half p = __float2half(expf(Ss[t][j] * scale - m_new));
                Ps[t][j] = p;
                l_tile += __half2float(p);
            }
            const float alpha = expf(m_old - m_new);
            row_alpha[t] = alpha;
            row_l[t] = row_l[t] * alpha + l_tile;
            row_m[t] = m_new;
        }
        __syncthreads();

        for (int e = t; e < BR * D; e += THREADS) Os[e / D][e % D] *= row_alpha[e / D];
        __syncthreads();

        {   // O[:, 16w .. 16w+15] += P V
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> o;
            wmma::load_matrix_sync(o, &Os[0][warp * 16], D, wmma::mem_row_major);
#pragma unroll
            for (int kk = 0; kk < BC; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(a, &Ps[0][kk], BC);
                wmma::load_matrix_sync(b, &Vs[kk][warp * 16], D);
                wmma::mma_sync(o, a, b, o);
            }
            wmma::store_matrix_sync(&Os[0][warp * 16], o, D, wmma::mem_row_major);
        }
        __syncthreads();  // Ks, Vs, Ps, Ss, Os are reused by the next tile
    }
    for (int e = t; e < BR * D; e += THREADS)
        if (e / D < nq) O[e] = Os[e / D][e % D] / row_l[e / D];
}
