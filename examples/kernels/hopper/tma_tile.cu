// A TMA tile kernel (issue 20 items 3-4): each CTA loads a 16 x 32 tile of x (f32, row-major,
// ROWS x COLS) into shared memory with one 2-D TMA copy under the 128-byte swizzle, completes it
// on an mbarrier, computes y = 2 x + 1 into a second (unswizzled) shared tile, and writes that
// tile back with a TMA store (bulk group). Against a naive kernel, one thread per element.
//
// tma_tile: the correct kernel. Thread 0 initializes the mbarrier, a __syncthreads publishes the
//   init, thread 0 arms it with the tile's bytes (arrive.expect_tx) and issues the copy; every
//   thread waits on phase 0 (parity 0) before it reads. Each thread reads its elements through the
//   swizzle (chunk c of row r sits at chunk c ^ (r % 8) of its 128-byte line: exec/tma.hpp, PTX ISA
//   5.5.7), writes 2 x + 1 to the output tile, and fences its writes for the async proxy
//   (fence.proxy.async.shared::cta) before the __syncthreads after which thread 0 stores the tile.
// tma_tile_early_read: the threads read the tile before they wait on the mbarrier (a race: the
//   copy's writes are ordered before a read only through the phase the read does not wait for).
// tma_tile_no_fence: no fence.proxy.async before the store (a race reported as a missing proxy
//   fence: the __syncthreads orders the generic writes before the issue, but the async proxy
//   that reads them sees only what proxy fences made visible).
#include <cuda.h>
#include <cstdint>

constexpr int COLS = 64;
constexpr int TILE_R = 16;
constexpr int TILE_C = 32;  // 32 f32 = 128 bytes: one swizzle span per row
constexpr int THREADS = 128;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void tile_naive(const float* __restrict__ x, float* __restrict__ y) {
  int c = blockIdx.x * TILE_C + threadIdx.x % TILE_C;
  for (int r = blockIdx.y * TILE_R + threadIdx.x / TILE_C; r < (blockIdx.y + 1) * TILE_R; r += THREADS / TILE_C)
    y[r * COLS + c] = 2.0f * x[r * COLS + c] + 1.0f;
}

template <bool EarlyRead, bool NoFence>
__device__ void tma_tile(const CUtensorMap* in_map, const CUtensorMap* out_map) {
  __shared__ alignas(1024) float in[TILE_R * TILE_C];
  __shared__ alignas(128) float out[TILE_R * TILE_C];
  __shared__ alignas(8) uint64_t bar;
  const int x0 = blockIdx.x * TILE_C, y0 = blockIdx.y * TILE_R;
  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(in_map) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)),
                 "r"(TILE_R * TILE_C * 4)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
        "[%4];" ::"r"(smem(in)),
        "l"(in_map), "r"(x0), "r"(y0), "r"(smem(&bar))
        : "memory");
  }
  auto wait = [&] {
    asm volatile(
        "{\n"
        "  .reg .pred done;\n"
        "WAIT_%=:\n"
        "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "  @!done bra WAIT_%=;\n"
        "}\n" ::"r"(smem(&bar))
        : "memory");
  };
  if (!EarlyRead) wait();
  for (int i = threadIdx.x; i < TILE_R * TILE_C; i += THREADS) {
    int r = i / TILE_C, c = i % TILE_C;
    int chunk = (c / 4) ^ (r % 8);  // the 128-byte swizzle of the TMA copy
    float v = in[r * TILE_C + chunk * 4 + c % 4];
    out[i] = 2.0f * v + 1.0f;
  }
  if (EarlyRead) wait();
  if (!NoFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(out_map),
                 "r"(x0), "r"(y0), "r"(smem(out))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    tma_tile_ok(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map) {
  tma_tile<false, false>(&in_map, &out_map);
}
extern "C" __global__ void __launch_bounds__(THREADS)
    tma_tile_early_read(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map) {
  tma_tile<true, false>(&in_map, &out_map);
}
extern "C" __global__ void __launch_bounds__(THREADS)
    tma_tile_no_fence(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map) {
  tma_tile<false, true>(&in_map, &out_map);
}
