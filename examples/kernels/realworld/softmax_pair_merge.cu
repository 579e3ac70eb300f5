// Online-softmax statistics merged across a warp's lanes (issue 21 item 16): each lane holds a
// partial (max, sum) pair (m, s), s a sum of exp(x - m) over its part of a row, and a butterfly of
// __shfl_xor_sync merges the pairs the way warp-level softmax and attention kernels do, selecting
// the pair with the larger max by comparison (`a.m > b.m ? a : b`) and rescaling the other's sum:
//   big = a.m > b.m ? a : b;  small = a.m > b.m ? b : a;  big.s += small.s * exp(small.m - big.m)
// Selecting the sum by a comparison of the maxima is no max/min of the compared values, so gpueq
// decides such a pair by a case split over the comparisons (README, "Semantics decisions").
//   pair_merge_naive          one thread: M = max_i m_i, S = sum_i s_i * exp(m_i - M); `n` pairs
//   pair_merge_select_<L>     L lanes (a block of L threads), log2(L) butterfly steps; lane 0 writes
//   pair_merge_no_rescale_<L> bug: the smaller max's sum is added without exp(small.m - big.m)
// out[0] = M, out[1] = S.

struct ms {
    float m, s;
};

__device__ __forceinline__ ms merge_select(ms a, ms b)
{
    ms big = a.m > b.m ? a : b;
    ms small = a.m > b.m ? b : a;
    big.s += small.s * expf(small.m - big.m);
    return big;
}

__device__ __forceinline__ ms merge_no_rescale(ms a, ms b)
{
    ms big = a.m > b.m ? a : b;
    ms small = a.m > b.m ? b : a;
    big.s += small.s;  // bug: small.s is relative to small.m, not big.m
    return big;
}

template <int L, bool Rescale>
__device__ __forceinline__ void pair_merge(const float* __restrict__ m, const float* __restrict__ s,
                                           float* __restrict__ out)
{
    const unsigned mask = L == 32 ? 0xffffffffu : (1u << L) - 1u;
    const int lane = threadIdx.x;
    ms v = {m[lane], s[lane]};
#pragma unroll
    for (int offset = L / 2; offset > 0; offset /= 2) {
        ms o;
        o.m = __shfl_xor_sync(mask, v.m, offset);
        o.s = __shfl_xor_sync(mask, v.s, offset);
        v = Rescale ? merge_select(v, o) : merge_no_rescale(v, o);
    }
    if (lane == 0) {
        out[0] = v.m;
        out[1] = v.s;
    }
}

extern "C" __global__ void pair_merge_naive(const float* __restrict__ m, const float* __restrict__ s,
                                            float* __restrict__ out, int n)
{
    float mx = -INFINITY;
#pragma unroll 1
    for (int i = 0; i < n; ++i) mx = fmaxf(mx, m[i]);
    float sum = 0.0f;
#pragma unroll 1
    for (int i = 0; i < n; ++i) sum += s[i] * expf(m[i] - mx);
    out[0] = mx;
    out[1] = sum;
}

extern "C" __global__ void pair_merge_select_2(const float* m, const float* s, float* out) { pair_merge<2, true>(m, s, out); }
extern "C" __global__ void pair_merge_select_4(const float* m, const float* s, float* out) { pair_merge<4, true>(m, s, out); }
extern "C" __global__ void pair_merge_select_8(const float* m, const float* s, float* out) { pair_merge<8, true>(m, s, out); }
extern "C" __global__ void pair_merge_select_32(const float* m, const float* s, float* out) { pair_merge<32, true>(m, s, out); }
extern "C" __global__ void pair_merge_no_rescale_2(const float* m, const float* s, float* out) { pair_merge<2, false>(m, s, out); }
extern "C" __global__ void pair_merge_no_rescale_4(const float* m, const float* s, float* out) { pair_merge<4, false>(m, s, out); }
