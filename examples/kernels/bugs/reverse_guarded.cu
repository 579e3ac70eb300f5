// Reverses the first n values of x within one block through shared memory: y[t] = x[n - 1 - t]
// for t < n. Threads past n take part in the barrier and do nothing else (CUDA's rule: every
// thread of the block reaches each __syncthreads). Launch: one block of at least n threads.
#define MAX_THREADS 128

extern "C" __global__ void reverse_guarded(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float s[MAX_THREADS];
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    if (t < n) y[t] = s[n - 1 - t];
}
