// Softmax of one row in base 2, naive: y[i] = 2^(x[i]·log2 e) / sum_j 2^(x[j]·log2 e), with no max
// subtraction (over the reals it is not needed). The reference of softmax_online_exp2: the same
// base-2 exponentials, so the two agree over the reals although log2 e is rounded to a float.
// Each thread adds the exponentials of a strided slice into shared memory; thread 0 adds the
// partial sums; every thread then divides. Launch: one CTA per row, blockDim.x <= 128.
#define MAX_THREADS 128
#define LOG2E 1.4426950408889634f

extern "C" __global__ void softmax_naive_exp2(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float partial[MAX_THREADS];
    __shared__ float total;
    const int t = threadIdx.x;

    float s = 0.0f;
    for (int i = t; i < n; i += blockDim.x)
        s += exp2f(x[i] * LOG2E);
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
        y[i] = exp2f(x[i] * LOG2E) / total;
}
