// Parallel sum reduction, version 3: sequential addressing; the stride halves from
// blockDim.x / 2 and thread t adds s[t + stride] (conflict-free, contiguous active threads).
#define MAX_THREADS 128

extern "C" __global__ void reduce3(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float s[MAX_THREADS];
    const unsigned t = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
