// BROKEN on purpose: the warp-specialized pipeline of mirror_pipeline.cu without the EMPTY
// barriers. The producer refills buf[k % 2] with chunk k + 2 as soon as it has issued chunk
// k + 1, while consumers may still be reading chunk k from it: a write-after-read race on buf
// between warp 0 and warps 1-2. Passes most tests because the consumers are usually faster than
// the global loads. Launch: 96 threads, n a multiple of 64.
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

extern "C" __global__ void mirror_no_empty_wait(const float* __restrict__ x, float* __restrict__ y,
                                           int n)
{
    __shared__ float buf[2][CHUNK];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int chunks = n / CHUNK;

    if (warp == 0) {  // producer
        for (int k = 0; k < chunks; ++k) {
            const int s = k % 2;
            // missing: if (k >= 2) named_sync(3 + s, THREADS);
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
        }
    }
}
