// Attention scores, optimized: the query rows are staged in shared memory, each thread computes
// a row of scores, and the scale for head dimension 64 is the constant 0.125 = 1/sqrt(64).
// Correct when d == 64. Launch: one thread per key j,
// blockDim.x >= nk, nq <= 16, d == 64.
#define D 64
#define MAX_Q 16

extern "C" __global__ void scores_tiled(const float* __restrict__ Q, const float* __restrict__ K,
                                        float* __restrict__ S, int nq, int nk, int d)
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
        S[i * nk + j] = acc * 0.125f;
    }
}
