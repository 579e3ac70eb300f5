// Attention scores reference: S[i][j] = (q_i . k_j) / sqrt(d), one thread per (i, j) entry,
// the scale computed as rsqrtf(d).
extern "C" __global__ void scores_ref(const float* __restrict__ Q, const float* __restrict__ K,
                                      float* __restrict__ S, int nq, int nk, int d)
{
    const int j = threadIdx.x, i = threadIdx.y;
    if (i >= nq || j >= nk) return;
    float acc = 0.0f;
    for (int c = 0; c < d; ++c)
        acc += Q[i * d + c] * K[j * d + c];
    S[i * nk + j] = acc * rsqrtf((float)d);
}
