// One TMA load shared by a cluster through multicast (issue 20 items 3 and 7): a cluster of two
// CTAs needs all of x (ROWS x COLS floats, row-major); each CTA loads one half of the rows with a
// 2-D TMA copy multicast to both CTAs (.multicast::cluster, ctaMask 0b11), so each CTA's shared
// tile receives its own half and its peer's, and each CTA's mbarrier counts both halves' bytes.
// CTA rank 0 then writes the column sums of x, rank 1 those of 2x + 1:
//   y[0][c] = sum_r x[r][c],   y[1][c] = sum_r (2 x[r][c] + 1).
//
// multicast_naive: grid 2, block COLS; CTA b computes y[b] from global memory.
// tma_multicast: __cluster_dims__(2), block COLS. Thread 0 of each CTA initializes its mbarrier
//   (fence.mbarrier_init.release.cluster) and the cluster barrier (barrier.cluster.arrive.release
//   / wait.acquire) orders both inits before either CTA's copy can complete bytes on them; thread
//   0 arms its mbarrier with both halves' bytes and issues its half, multicast; every thread waits
//   on phase 0 and sums its column. A last cluster barrier keeps both CTAs (and their shared
//   memory) alive until both have read.
// tma_multicast_no_init_sync (bug): without the first cluster barrier, a CTA's multicast copy
//   may complete bytes on the peer's mbarrier before the peer has initialized it (a race between
//   the peer's mbarrier.init and the copy's complete_tx).
// tma_multicast_self_only (bug): each CTA's ctaMask names only itself: each mbarrier receives
//   one half's bytes of the two it expects, and both CTAs wait forever (a deadlock).
#include <cuda.h>
#include <cstdint>

constexpr int ROWS = 32, COLS = 64, HALF = ROWS / 2;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void multicast_naive(const float* __restrict__ x, float* __restrict__ y) {
  const int b = blockIdx.x, c = threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < ROWS; ++r) {
    const float v = x[r * COLS + c];
    s += b == 0 ? v : 2.0f * v + 1.0f;
  }
  y[b * COLS + c] = s;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

template <bool InitSync, bool SelfOnly>
__device__ void multicast_sum(const CUtensorMap* map, float* y) {
  __shared__ alignas(128) float tile[ROWS * COLS];
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (InitSync) cluster_sync();
  else __syncthreads();
  if (threadIdx.x == 0) {
    const uint16_t mask = SelfOnly ? uint16_t(1u << rank) : uint16_t(0x3);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(ROWS * COLS * 4)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(tile + rank * HALF * COLS)),
        "l"(map), "r"(0), "r"(int(rank) * HALF), "r"(smem(&bar)), "h"(mask)
        : "memory");
  }
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "WAIT_%=:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "  @!done bra WAIT_%=;\n"
      "}\n" ::"r"(smem(&bar))
      : "memory");
  const int c = threadIdx.x;
  float s = 0.0f;
  for (int r = 0; r < ROWS; ++r) {
    const float v = tile[r * COLS + c];
    s += rank == 0 ? v : 2.0f * v + 1.0f;
  }
  y[rank * COLS + c] = s;
  cluster_sync();
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) tma_multicast(const __grid_constant__ CUtensorMap map, float* y) {
  multicast_sum<true, false>(&map, y);
}
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    tma_multicast_no_init_sync(const __grid_constant__ CUtensorMap map, float* y) {
  multicast_sum<false, false>(&map, y);
}
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    tma_multicast_self_only(const __grid_constant__ CUtensorMap map, float* y) {
  multicast_sum<true, true>(&map, y);
}
