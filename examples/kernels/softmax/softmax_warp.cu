// Softmax of one row by a single warp: each lane runs the online normalizer over a strided
// slice, then five butterfly steps of __shfl_xor_sync merge the (max, denominator) pairs so that
// every lane holds the row's. No shared memory, no __syncthreads. Launch: one warp per row.
extern "C" __global__ void softmax_warp(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int lane = threadIdx.x & 31;

    float m = -INFINITY, d = 0.0f;
    for (int i = lane; i < n; i += 32) {
        const float v = x[i];
        const float m_new = fmaxf(m, v);
        d = d * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        const float mo = __shfl_xor_sync(0xffffffffu, m, offset);
        const float dO = __shfl_xor_sync(0xffffffffu, d, offset);
        const float mm = fmaxf(m, mo);
        d = d * expf(m - mm) + dO * expf(mo - mm);
        m = mm;
    }

    for (int i = lane; i < n; i += 32)
        y[i] = expf(x[i] - m) / d;
}
