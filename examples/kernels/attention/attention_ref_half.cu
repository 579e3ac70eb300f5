// Attention reference for the tensor-core kernel, one thread: O = softmax(scale * Q K^T) V with
// half Q (nq x 64), K and V (nkv x 64), float arithmetic and float O. Launch: 1 thread.
#include <cuda_fp16.h>

#define D 64

extern "C" __global__ void attention_ref_half(const __half* __restrict__ Q,
                                              const __half* __restrict__ K,
                                              const __half* __restrict__ V, float* __restrict__ O,
                                              int nq, int nkv, float scale)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    for (int i = 0; i < nq; ++i) {
        float m = -INFINITY;
        for (int j = 0; j < nkv; ++j) {
            float s = 0.0f;
            for (int c = 0; c < D; ++c) s += __half2float(Q[i * D + c]) * __half2float(K[j * D + c]);
            m = fmaxf(m, s * scale);
        }
        float l = 0.0f;
        float o[D];
        for (int c = 0; c < D; ++c) o[c] = 0.0f;
        for (int j = 0; j < nkv; ++j) {
            float s = 0.0f;
            for (int c = 0; c < D; ++c) s += __half2float(Q[i * D + c]) * __half2float(K[j * D + c]);
            const float p = expf(s * scale - m);
            l += p;
            for (int c = 0; c < D; ++c) o[c] += p * __half2float(V[j * D + c]);
        }
        for (int c = 0; c < D; ++c) O[i * D + c] = o[c] / l;
    }
}
