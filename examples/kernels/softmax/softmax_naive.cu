// Softmax of one row, the VOLTA paper's Figure 1 reference: y[i] = exp(x[i]) / sum_j exp(x[j]).
// No max subtraction (over the reals it is not needed). Each thread adds the exponentials of a
// strided slice into shared memory; thread 0 adds the partial sums; every thread then divides.
// Launch: one CTA per row, blockDim.x <= 128.
#define MAX_THREADS 128

extern "C" __global__ void softmax_naive(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float partial[MAX_THREADS];
    __shared__ float total;
    const int t = threadIdx.x;

    float s = 0.0f;
    for (int i = t; i < n; i += blockDim.x)
        s += expf(x[i]);
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
        y[i] = expf(x[i]) / total;
}
