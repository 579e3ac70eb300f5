// Attention in the FlashAttention-1 style: K and V are streamed through shared memory in tiles
// of 32 rows; for each tile the CTA computes the 16x32 score block, every row updates its
// running maximum m and sum l with the online-softmax rescaling, and the output, kept normalized
// after every tile as in FlashAttention-1, becomes
//   O = (l_old * exp(m_old - m_new) / l_new) * O + (1 / l_new) * P V.
// 128 threads: thread t owns output row t / 8, columns (t % 8) * 8 .. + 7, in registers.
// Launch: 128 threads, nq <= 16, nkv a multiple of 32, head dimension 64.
#define D 64
#define BR 16
#define BC 32
#define THREADS 128

extern "C" __global__ void attention_flash1(const float* __restrict__ Q,
                                            const float* __restrict__ K,
                                            const float* __restrict__ V, float* __restrict__ O,
                                            int nq, int nkv, float scale)
{
    __shared__ float Qs[BR][D];
    __shared__ float Ks[BC][D];
    __shared__ float Vs[BC][D];
    __shared__ float Ss[BR][BC];
    __shared__ float row_m[BR], row_l[BR], row_corr[BR], row_inv[BR];
    const int t = threadIdx.x;
    const int orow = t / 8, ocol = (t % 8) * 8;

    for (int e = t; e < BR * D; e += THREADS)
        Qs[e / D][e % D] = e / D < nq ? Q[e] : 0.0f;
    if (t < BR) {
        row_m[t] = -INFINITY;
        row_l[t] = 0.0f;
    }
    float o[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) o[c] = 0.0f;

#pragma unroll 1
    for (int j0 = 0; j0 < nkv; j0 += BC) {
        for (int e = t; e < BC * D; e += THREADS) {
            Ks[e / D][e % D] = K[j0 * D + e];
            Vs[e / D][e % D] = V[j0 * D + e];
        }
        __syncthreads();

#pragma unroll 1
        for (int e = t; e < BR * BC; e += THREADS) {
            const int r = e / BC, j = e % BC;
            float s = 0.0f;
#pragma unroll 8
            for (int c = 0; c < D; ++c) s += Qs[r][c] * Ks[j][c];
            Ss[r][j] = s * scale;
        }
        __syncthreads();

        if (t < BR) {  // one thread per query row: online softmax statistics
            const float m_old = row_m[t], l_old = row_l[t];
            float m_new = m_old;
            for (int j = 0; j < BC; ++j) m_new = fmaxf(m_new, Ss[t][j]);
            float l_tile = 0.0f;
            for (int j = 0; j < BC; ++j) {
                const float p = expf(Ss[t][j] - m_new);
                Ss[t][j] = p;
                l_tile += p;
            }
            const float l_new = l_old * expf(m_old - m_new) + l_tile;
            row_corr[t] = l_old * expf(m_old - m_new) / l_new;
            row_inv[t] = 1.0f / l_new;
            row_m[t] = m_new;
            row_l[t] = l_new;
        }
        __syncthreads();

        const float corr = row_corr[orow], inv = row_inv[orow];
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            float pv = 0.0f;
#pragma unroll 4
            for (int j = 0; j < BC; ++j) pv += Ss[orow][j] * Vs[j][ocol + c];
            o[c] = corr * o[c] + inv * pv;
        }
        __syncthreads();  // Ks, Vs and Ss are overwritten by the next tile
    }
    if (orow < nq)
#pragma unroll
        for (int c = 0; c < 8; ++c) O[orow * D + ocol + c] = o[c];
}
