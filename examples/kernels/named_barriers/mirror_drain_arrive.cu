// BROKEN on purpose: the warp-specialized pipeline of mirror_pipeline.cu with a drain handshake at
// the end on named barrier DONE (id 5): the consumers signal that they are done with the last
// chunks and the producer was meant to wait for that before it leaves, but both sides call
// bar.arrive. The generation of DONE completes with arrivals only: nobody waits on it, so it
// orders nothing and the handshake is missing its consumer (WEFT's all-arrivals error). The
// outputs are right and nothing races; the barrier is misused. Launch: 96 threads, n a multiple
// of 64.
#define CHUNK 64
#define THREADS 96
#define DONE 5

__device__ __forceinline__ void named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void mirror_drain_arrive(const float* __restrict__ x, float* __restrict__ y,
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
        named_arrive(DONE, THREADS);  // should be named_sync: wait until the consumers are done
    } else {  // consumers: 64 threads, one output each per chunk
        const int c = threadIdx.x - 32;
        for (int k = 0; k < chunks; ++k) {
            const int s = k % 2;
            named_sync(1 + s, THREADS);
            y[k * CHUNK + c] = buf[s][c] * buf[s][CHUNK - 1 - c];
            if (k + 2 < chunks) named_arrive(3 + s, THREADS);  // buf[s] may be refilled
        }
        named_arrive(DONE, THREADS);  // done with every chunk
    }
}
