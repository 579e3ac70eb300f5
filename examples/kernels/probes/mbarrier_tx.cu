// Hardware probes of an mbarrier's transaction count (not a corpus pair): what a phase does
// when more bytes complete than were expected (the surplus goes to the next phase, whose count
// goes negative) and when bytes complete before they are expected. One thread drives one
// mbarrier with expect_tx / complete_tx / arrive and records, after each step, whether the phase
// of each parity has completed (mbarrier.test_wait.parity). out[i] = 1 completed, 0 not.
// examples/kernels/hardware.py runs them on a GPU and compares with gpueq's float32 run; the
// README's "Semantics" section says what gpueq does and what the H100 did.
// Launch: 1 CTA of 32 threads; out of 8 ints.

__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ int done(unsigned bar, unsigned parity)
{
    unsigned r;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(r) : "r"(bar), "r"(parity) : "memory");
    return (int)r;
}
__device__ __forceinline__ void expect_arrive(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void complete(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// ws_gemm_tx_short's mechanics: 8192 bytes expected, 16384 complete.
extern "C" __global__ void probe_surplus(int* out)
{
    __shared__ __align__(8) unsigned long long b;
    const unsigned bar = smem(&b);
    if (threadIdx.x != 0) return;
    init(bar, 1);
    expect_arrive(bar, 8192);  // phase 0: no arrival pending, 8192 bytes
    out[0] = done(bar, 0);     // 0
    complete(bar, 8192);       // phase 0 completes
    out[1] = done(bar, 0);     // 1
    complete(bar, 8192);       // surplus: phase 1 at -8192 bytes?
    out[2] = done(bar, 1);     // 0 (phase 1 still waits for its arrival)
    expect_arrive(bar, 8192);  // phase 1: no arrival pending, 0 bytes if the surplus counted
    out[3] = done(bar, 1);     // 1 if phase 1 completed here
    complete(bar, 8192);
    out[4] = done(bar, 1);
    out[5] = done(bar, 0);
}

// Bytes completed before they are expected.
extern "C" __global__ void probe_negative(int* out)
{
    __shared__ __align__(8) unsigned long long b;
    const unsigned bar = smem(&b);
    if (threadIdx.x != 0) return;
    init(bar, 1);
    complete(bar, 4096);       // phase 0 at -4096 bytes?
    out[0] = done(bar, 0);     // 0
    arrive(bar);               // no arrival pending; the bytes at -4096 (or 0 if clamped)
    out[1] = done(bar, 0);
    expect(bar, 4096);         // the bytes back at 0 if they were at -4096
    out[2] = done(bar, 0);
    out[3] = done(bar, 1);
}
