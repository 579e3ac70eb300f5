// BROKEN on purpose: the FlashAttention-2 style kernel of attention_flash2_no_rescale.cu without the
// rescaling of the unnormalized output accumulator by exp(m_old - m_new) when a row maximum
// grows (the row sum l is still rescaled). Right whenever each row's maximum score lies in the
// first K tile. gpueq must say "different".
#define D 64
#define BC 32
#define ROWS_PER_WARP 4
#define THREADS 128

extern "C" __global__ void attention_flash2_no_rescale(const float* __restrict__ Q,
                                            const float* __restrict__ K,
                                            const float* __restrict__ V, float* __restrict__ O,
                                            int nq, int nkv, float scale)
{
    __shared__ float Qs[ROWS_PER_WARP * THREADS / 32][D];
    __shared__ float Ks[BC][D + 1];  // +1: lane j reads row j, conflict-free
    __shared__ float Vs[BC][D];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    const int r0 = warp * ROWS_PER_WARP;

    for (int e = t; e < ROWS_PER_WARP * (THREADS / 32) * D; e += THREADS)
        Qs[e / D][e % D] = e / D < nq ? Q[e] : 0.0f;

    float m[ROWS_PER_WARP], l[ROWS_PER_WARP], o[ROWS_PER_WARP][2];
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r) {
        m[r] = -INFINITY;
        l[r] = 0.0f;
        o[r][0] = o[r][1] = 0.0f;
    }

#pragma unroll 1
    for (int j0 = 0; j0 < nkv; j0 += BC) {
        __syncthreads();  // previous tile fully used (and Qs visible on the first pass)
        for (int e = t; e < BC * D; e += THREADS) {
            Ks[e / D][e % D] = K[j0 * D + e];
            Vs[e / D][e % D] = V[j0 * D + e];
        }
        __syncthreads();

        float p[ROWS_PER_WARP];
#pragma unroll
        for (int r = 0; r < ROWS_PER_WARP; ++r) {
            float s = 0.0f;
#pragma unroll 8
            for (int c = 0; c < D; ++c) s += Qs[r0 + r][c] * Ks[lane][c];
            s *= scale;
            float mx = s;
            for (int off = 16; off > 0; off /= 2)
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
            const float m_new = fmaxf(m[r], mx);
            const float alpha = expf(m[r] - m_new);
            p[r] = expf(s - m_new);
            float ps = p[r];
            for (int off = 16; off > 0; off /= 2) ps += __shfl_xor_sync(0xffffffffu, ps, off);
            l[r] = l[r] * alpha + ps;
            m[r] = m_new;
            // missing: o[r][0] *= alpha; o[r][1] *= alpha;
        }
#pragma unroll 2
        for (int j = 0; j < BC; ++j) {
            const float v0 = Vs[j][2 * lane], v1 = Vs[j][2 * lane + 1];
#pragma unroll
            for (int r = 0; r < ROWS_PER_WARP; ++r) {
                const float pj = __shfl_sync(0xffffffffu, p[r], j);
                o[r][0] += pj * v0;
                o[r][1] += pj * v1;
            }
        }
    }
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r)
        if (r0 + r < nq) {
            O[(r0 + r) * D + 2 * lane] = o[r][0] / l[r];
            O[(r0 + r) * D + 2 * lane + 1] = o[r][1] / l[r];
        }
}
