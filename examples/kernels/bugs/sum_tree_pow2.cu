// BROKEN for non-powers of two: a tree reduction in shared memory whose stride halves from
// blockDim.x / 2. Right when blockDim.x is a power of two (every test used 128 or 256); with
// 96 threads the stride runs 48, 24, 12, 6, 3, 1 and after the stride-3 step the partial sum in
// s[2] is never added. Launch: one CTA with blockDim.x == n <= 128.
#define MAX_THREADS 128

extern "C" __global__ void sum_tree_pow2(const float* __restrict__ x, float* __restrict__ out,
                                         int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    s[t] = t < n ? x[t] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[0] = s[0];
}
