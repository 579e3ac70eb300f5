// Warp-specialized producer/consumer pipeline with named barriers (the WEFT pattern): warp 0 is
// the DMA warp, copying chunk k of x into shared buffer k % 2; warps 1 and 2 compute
// y[b + c] = buf[c] * buf[63 - c]. Two barriers per stage, 96 threads each:
//   FULL[s]  (id 1 + s): producer bar.arrive after filling buf[s]; consumers bar.sync before use
//   EMPTY[s] (id 3 + s): consumers bar.arrive after use; producer bar.sync before refilling
// bar.arrive releases the producer's stores to the threads that bar.sync on the same barrier;
// the producer never waits on FULL and the consumers never wait on EMPTY.
// Launch: 96 threads (3 warps), n a multiple of 64.
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

extern "C" __global__ void mirror_pipeline(const float* __restrict__ x, float* __restrict__ y,
                                           int n)
{
    __shared__ float buf[2][CHUNK];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int chunks = n / CHUNK;

    if (warp == 0) {  // producer
        for (int k = 0; k < chunks; ++k) {
            const int s = k % 2;
            if (k >= 2) named_sync(3 + s, THREADS);  // wait until chunk k - 2 is consumed
            buf[s][lane] = x[k * CHUNK + lane];
            buf[s][lane + 32] = x[k * CHUNK + lane + 32];
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
