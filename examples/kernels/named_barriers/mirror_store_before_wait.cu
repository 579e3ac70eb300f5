// BROKEN on purpose: the warp-specialized pipeline of mirror_store_before_wait.cu with the producer's
// stores into buf[k % 2] hoisted above its wait on EMPTY (a "prefetch" moved too early). The
// barrier protocol is intact, every instance completes with the right threads, but the stores
// of chunk k race with the consumers' reads of chunk k - 2 from the same buffer.
// Launch: 96 threads, n a multiple of 64.
#define CHUNK 64
#define THREADS 96

__device__ __forceinline__ void named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void mirror_store_before_wait(const float* __restrict__ x, float* __restrict__ y,
                                           int n)
{
    __shared__ float buf[2][CHUNK];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int chunks = n / CHUNK;

    if (warp == 0) {  // producer
        for (int k = 0; k < chunks; ++k) {
            const int s = k % 2;
            buf[s][lane] = x[k * CHUNK + lane];  // too early: chunk k - 2 may still be read
            buf[s][lane + 32] = x[k * CHUNK + lane + 32];
            if (k >= 2) named_sync(3 + s, THREADS);
            named_arrive(1 + s, THREADS);
        }
    } else {  // consumers: 64 threads, one output each per chunk
        const int c = threadIdx.x - 32;
        for (int k = 0; k < chunks; ++k) {
            const int s = k % 2;
            named_sync(1 + s, THREADS);
            y[k * CHUNK + c] = buf[s][c] * buf[s][CHUNK - 1 - c];
            if (k + 2 < chunks) named_arrive(3 + s, THREADS);  // buf[s] may be refilled
        }
    }
}
