// BROKEN on purpose: the optimized attention scores scaled by 1/d instead of 1/sqrt(d) (a wrong
// scale is the classic silent error: softmax of the scores stays a valid distribution, only too
// flat). gpueq must say "different".
#define D 64
#define MAX_Q 16

extern "C" __global__ void scores_wrong_scale(const float* __restrict__ Q,
                                              const float* __restrict__ K, float* __restrict__ S,
                                              int nq, int nk, int d)
{
    __shared__ float qs[MAX_Q][D];
    for (int e = threadIdx.x; e < nq * D; e += blockDim.x)
        qs[e / D][e % D] = Q[e];
    __syncthreads();
    const int j = threadIdx.x;
    if (j >= nk) return;
    float kr[D];
#pragma unroll
    for (int c = 0; c < D; ++c) kr[c] = K[j * D + c];
#pragma unroll 1
    for (int i = 0; i < nq; ++i) {
        float acc = 0.0f;
#pragma unroll
        for (int c = 0; c < D; ++c) acc += qs[i][c] * kr[c];
        S[i * nk + j] = acc / (float)d;  // should be acc * rsqrtf(d)
    }
}
