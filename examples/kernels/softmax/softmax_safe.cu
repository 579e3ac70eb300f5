// Softmax of one row, the numerically safe three-phase form: a shared-memory tree reduction for
// the maximum, another for sum exp(x - max), then y[i] = exp(x[i] - max) / sum.
// Launch: one CTA per row, blockDim.x a power of two <= 128.
#define MAX_THREADS 128

extern "C" __global__ void softmax_safe(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float buf[MAX_THREADS];
    const int t = threadIdx.x;

    float m = -INFINITY;
    for (int i = t; i < n; i += blockDim.x)
        m = fmaxf(m, x[i]);
    buf[t] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            buf[t] = fmaxf(buf[t], buf[t + stride]);
        __syncthreads();
    }
    const float row_max = buf[0];
    __syncthreads();  // everyone has read buf[0] before it is reused

    float s = 0.0f;
    for (int i = t; i < n; i += blockDim.x)
        s += expf(x[i] - row_max);
    buf[t] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            buf[t] += buf[t + stride];
        __syncthreads();
    }
    const float denom = buf[0];

    for (int i = t; i < n; i += blockDim.x)
        y[i] = expf(x[i] - row_max) / denom;
}
