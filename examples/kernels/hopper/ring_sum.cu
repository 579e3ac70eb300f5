// A warp-specialized column sum through an mbarrier ring (the synchronization skeleton of a Hopper
// GEMM's mainloop, without TMA and wgmma): y[c] = sum over r of x[r][c], x of ROWS x 128 floats.
//
// ring_sum_naive: 128 threads, thread c adds column c.
// ring_sum_ws: 160 threads. Warp 4 is the producer: for each row it waits until the ring stage
// r % STAGES is empty, copies the row into it (4 floats per lane) and arrives on that stage's
// "full" mbarrier. Warps 0-3 consume: each thread waits on "full", adds its column, and arrives on
// "empty". Parities follow the usual ring: round r uses phase (r / STAGES) of each barrier; the
// producer's first wait on each stage passes at once (parity 1 at phase 0).
// ring_sum_early_release: the consumer arrives on "empty" before it reads the stage (a race: the
// producer may refill the stage under the read).
// ring_sum_wrong_parity: the producer waits on "empty" without the initial flip (parity
// (r / STAGES) & 1): its first wait asks for phase 0 of a barrier that only consumers complete,
// and they wait for the producer: deadlock, the classic ring bug.
#include <cstdint>

constexpr int COLS = 128;
constexpr int ROWS = 8;
constexpr int STAGES = 2;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT_%=:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "  @!done bra WAIT_%=;\n"
      "}\n" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

extern "C" __global__ void ring_sum_naive(const float* __restrict__ x, float* __restrict__ y) {
  int c = threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < ROWS; ++r) s += x[r * COLS + c];
  y[c] = s;
}

template <bool EarlyRelease, bool WrongParity>
__device__ void ring_sum(const float* __restrict__ x, float* __restrict__ y) {
  __shared__ __align__(16) float stage[STAGES][COLS];
  __shared__ __align__(8) uint64_t full[STAGES];
  __shared__ __align__(8) uint64_t empty[STAGES];
  int t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 32);     // the producer warp's lanes
      mbar_init(&empty[s], COLS);  // every consumer thread
    }
  }
  __syncthreads();
  if (t >= COLS) {  // producer warp
    int lane = t - COLS;
    for (int r = 0; r < ROWS; ++r) {
      int s = r % STAGES;
      mbar_wait(&empty[s], ((r / STAGES) & 1) ^ (WrongParity ? 0 : 1));
      for (int i = 0; i < 4; ++i) stage[s][lane * 4 + i] = x[r * COLS + lane * 4 + i];
      mbar_arrive(&full[s]);
    }
  } else {  // consumers
    float acc = 0.0f;
    for (int r = 0; r < ROWS; ++r) {
      int s = r % STAGES;
      mbar_wait(&full[s], (r / STAGES) & 1);
      if (EarlyRelease) mbar_arrive(&empty[s]);
      acc += stage[s][t];
      if (!EarlyRelease) mbar_arrive(&empty[s]);
    }
    y[t] = acc;
  }
}

extern "C" __global__ void ring_sum_ws(const float* __restrict__ x, float* __restrict__ y) { ring_sum<false, false>(x, y); }
extern "C" __global__ void ring_sum_early_release(const float* __restrict__ x, float* __restrict__ y) {
  ring_sum<true, false>(x, y);
}
extern "C" __global__ void ring_sum_wrong_parity(const float* __restrict__ x, float* __restrict__ y) {
  ring_sum<false, true>(x, y);
}
