// Attention reference, one thread: O = softmax(scale * Q K^T) V with Q (nq x 64), K and V
// (nkv x 64), O (nq x 64), row-major; for each query row the scores, their maximum, the
// exponentials and their sum, then the weighted sum of V rows. Launch: 1 thread.
#define D 64

extern "C" __global__ void attention_ref(const float* __restrict__ Q, const float* __restrict__ K,
                                         const float* __restrict__ V, float* __restrict__ O,
                                         int nq, int nkv, float scale)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    for (int i = 0; i < nq; ++i) {
        float m = -INFINITY;
        for (int j = 0; j < nkv; ++j) {
            float s = 0.0f;
            for (int c = 0; c < D; ++c) s += Q[i * D + c] * K[j * D + c];
            m = fmaxf(m, s * scale);
        }
        float l = 0.0f;
        float o[D];
        for (int c = 0; c < D; ++c) o[c] = 0.0f;
        for (int j = 0; j < nkv; ++j) {
            float s = 0.0f;
            for (int c = 0; c < D; ++c) s += Q[i * D + c] * K[j * D + c];
            const float p = expf(s * scale - m);
            l += p;
            for (int c = 0; c < D; ++c) o[c] += p * V[j * D + c];
        }
        for (int c = 0; c < D; ++c) O[i * D + c] = o[c] / l;
    }
}
