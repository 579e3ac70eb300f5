// Softmax of one row in base 2, naive: y[i] = 2^(c·x[i]) / sum_j 2^(c·x[j]) with c = scale_log2e
// (log2 e, or a softmax scale times log2 e, passed in as Triton passes qk_scale), and no max
// subtraction (over the reals it is not needed). The reference of softmax_online_exp2: the same
// base-2 exponentials, so the two agree over the reals although c is a rounded float.
// Each thread adds the exponentials of a strided slice into shared memory; thread 0 adds the
// partial sums; every thread then divides. Launch: one CTA per row, blockDim.x <= 128.
#define MAX_THREADS 128

extern "C" __global__ void softmax_naive_exp2(const float* __restrict__ x, float* __restrict__ y, int n, float scale_log2e)
{
    __shared__ float partial[MAX_THREADS];
    __shared__ float total;
    const int t = threadIdx.x;

    float s = 0.0f;
    for (int i = t; i < n; i += blockDim.x)
        s += exp2f(x[i] * scale_log2e);
    partial[t] = s;
    __syncthreads();

    if (t == 0) {
        float sum = 0.0f;
        for (int j = 0; j < blockDim.x; ++j)
            sum += partial[j];
        total = sum;
    }
    __syncthreads();

    for (int i = t; i < n; i += blockDim.x)
        y[i] = exp2f(x[i] * scale_log2e) / total;
}
