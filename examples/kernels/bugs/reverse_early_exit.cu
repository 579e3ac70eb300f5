// The reversal of reverse_guarded.cu with the guard written as an early return: threads past n
// leave before the __syncthreads that the others reach. CUDA calls that undefined (every thread of
// the block must reach each __syncthreads that any thread reaches); PTX defines it (an exiting
// thread releases a barrier that waits for all threads, `exit`), and GPUs run it as intended.
// gpueq checks PTX semantics by default (equivalent to reverse_guarded) and reports the barrier
// divergence with --strict-barriers. Launch: one block of at least n threads.
#define MAX_THREADS 128

extern "C" __global__ void reverse_early_exit(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float s[MAX_THREADS];
    const int t = threadIdx.x;
    if (t >= n) return;  // skips the __syncthreads below
    s[t] = x[t];
    __syncthreads();
    y[t] = s[n - 1 - t];
}
