// Version 1 of the reduction ladder over 32-bit integers (the tutorial's original data type):
// interleaved addressing with a divergent branch. One CTA sums blockDim.x values (a power of
// two <= 128) of x into out[blockIdx.x]. Integer data is symbolic in gpueq too (exact integers,
// assuming no overflow).
#define MAX_THREADS 128

extern "C" __global__ void reduce1_int(const int* __restrict__ x, int* __restrict__ out, int n)
{
    __shared__ int s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
