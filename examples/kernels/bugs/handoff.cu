// BROKEN on purpose (issue 21 item 7): a race that only named barriers order. Warp 0 produces
// buf, warp 1 consumes it, in two rounds through named barriers 1 (FULL) and 2 (EMPTY), each of 64
// threads (both warps). The consumer signals EMPTY (bar.arrive) before it reads buf instead of
// after, so the producer may overwrite buf with round 1 while the consumer still reads round 0:
// a write-after-read race. Under the default schedule the consumer reads first; a schedule that
// holds warp 1 back before its read (it is not needed for the EMPTY generation, which it has
// already arrived at) lets round 1's store land first. handoff_ref is the fixed kernel.
// Launch: 1 CTA of 64 threads; x of 64 elements (two rounds of 32), y of 64.
#define LANES 32

__device__ __forceinline__ void named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void handoff_ref(const float* x, float* y)
{
    __shared__ float buf[LANES];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) {  // producer
        for (int k = 0; k < 2; ++k) {
            if (k > 0) named_sync(2, 64);  // wait until round k - 1 is consumed
            buf[lane] = x[k * LANES + lane];
            named_arrive(1, 64);
        }
    } else {  // consumer
        for (int k = 0; k < 2; ++k) {
            named_sync(1, 64);
            y[k * LANES + lane] = 2.0f * buf[(lane + 1) % LANES];
            if (k == 0) named_arrive(2, 64);
        }
    }
}

extern "C" __global__ void handoff_early(const float* x, float* y)
{
    __shared__ float buf[LANES];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp == 0) {  // producer
        for (int k = 0; k < 2; ++k) {
            if (k > 0) named_sync(2, 64);
            buf[lane] = x[k * LANES + lane];
            named_arrive(1, 64);
        }
    } else {  // consumer
        for (int k = 0; k < 2; ++k) {
            named_sync(1, 64);
            if (k == 0) named_arrive(2, 64);  // too early: buf still to be read
            y[k * LANES + lane] = 2.0f * buf[(lane + 1) % LANES];
        }
    }
}
