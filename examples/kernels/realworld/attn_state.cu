// Attention over a chunk of keys that updates a running state the host initialized (issue 21 item
// 17), the way split-KV and flash-decoding kernels carry (m, l, O) from chunk to chunk: before the
// first chunk the host sets m = -inf, l = 0 and O = 0 (cudaMemset and a fill kernel). For each
// query row r the state after the keys j = 0..keys-1, with s_j = scale * q_r . k_j, is
//   m = max(m, max_j s_j),  l = l*exp(m_old - m) + sum_j exp(s_j - m),  O = O*exp(m_old - m) + sum_j exp(s_j - m) v_j
// (O unnormalized). The spec gives m, l, O as inout tensors with those contents; over symbolic
// initial state the online kernel's result depends on it and the naive one's does not.
// D = 16 columns; keys a multiple of TILE.
//   attn_state_naive              one thread per row (launch `rows` threads): the row's maximum,
//                                 then the exponentials and sums, written to m, l, O; it ignores the
//                                 state, which is what the initialized state must make no
//                                 difference to
//   attn_state_online             one thread per (row, column) (launch rows*D threads): reads the
//                                 state, then tiles of TILE keys with the online rescaling, writes
//                                 the state back
//   attn_state_online_no_rescale  bug: O is not rescaled by exp(m_old - m_new) between tiles
#define D 16
#define TILE 8

extern "C" __global__ void attn_state_naive(const float* __restrict__ Q, const float* __restrict__ K,
                                            const float* __restrict__ V, float* __restrict__ m, float* __restrict__ l,
                                            float* __restrict__ O, int keys, float scale)
{
    const int r = threadIdx.x;
    float q[D];
#pragma unroll
    for (int c = 0; c < D; ++c) q[c] = Q[r * D + c];
    float mx = -INFINITY;
#pragma unroll 1
    for (int j = 0; j < keys; ++j) {
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < D; ++c) s += q[c] * K[j * D + c];
        mx = fmaxf(mx, s * scale);
    }
    float sum = 0.0f, acc[D];
#pragma unroll
    for (int c = 0; c < D; ++c) acc[c] = 0.0f;
#pragma unroll 1
    for (int j = 0; j < keys; ++j) {
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < D; ++c) s += q[c] * K[j * D + c];
        const float p = expf(s * scale - mx);
        sum += p;
#pragma unroll
        for (int c = 0; c < D; ++c) acc[c] += p * V[j * D + c];
    }
    m[r] = mx;
    l[r] = sum;
#pragma unroll
    for (int c = 0; c < D; ++c) O[r * D + c] = acc[c];
}

template <bool Rescale>
__device__ void attn_state_online_body(const float* __restrict__ Q, const float* __restrict__ K,
                                       const float* __restrict__ V, float* __restrict__ m, float* __restrict__ l,
                                       float* __restrict__ O, int keys, float scale)
{
    const int r = threadIdx.x / D, c = threadIdx.x % D;
    float mi = m[r], li = l[r], o = O[r * D + c];  // the state the host initialized
    __syncthreads();  // every thread of the row has read m[r] and l[r] before column 0 writes them
#pragma unroll 1
    for (int j0 = 0; j0 < keys; j0 += TILE) {
        float s[TILE], tile_max = -INFINITY;
#pragma unroll
        for (int t = 0; t < TILE; ++t) {
            float dot = 0.0f;
#pragma unroll
            for (int k = 0; k < D; ++k) dot += Q[r * D + k] * K[(j0 + t) * D + k];
            s[t] = dot * scale;
            tile_max = fmaxf(tile_max, s[t]);
        }
        const float m_new = fmaxf(mi, tile_max);
        const float alpha = expf(mi - m_new);  // 0 on the first tile: exp(-inf - m_new)
        li *= alpha;
        if (Rescale) o *= alpha;
#pragma unroll
        for (int t = 0; t < TILE; ++t) {
            const float p = expf(s[t] - m_new);
            li += p;
            o += p * V[(j0 + t) * D + c];
        }
        mi = m_new;
    }
    O[r * D + c] = o;
    if (c == 0) {
        m[r] = mi;
        l[r] = li;
    }
}

extern "C" __global__ void attn_state_online(const float* __restrict__ Q, const float* __restrict__ K,
                                             const float* __restrict__ V, float* __restrict__ m, float* __restrict__ l,
                                             float* __restrict__ O, int keys, float scale)
{
    attn_state_online_body<true>(Q, K, V, m, l, O, keys, scale);
}

extern "C" __global__ void attn_state_online_no_rescale(const float* __restrict__ Q, const float* __restrict__ K,
                                                        const float* __restrict__ V, float* __restrict__ m,
                                                        float* __restrict__ l, float* __restrict__ O, int keys, float scale)
{
    attn_state_online_body<false>(Q, K, V, m, l, O, keys, scale);
}
