// A warp-specialized Hopper GEMM mainloop (issue 20 corpus): C = A B with A (64 x 256) and B
// (256 x 64) row-major halves, C (64 x 64) float, in the style of a CUTLASS 3 / FlashAttention-3
// sm_90a kernel, against a naive one-thread-per-element product.
//
// ws_gemm_naive: grid 4x4, block 16x16; C[r][c] = sum_k A[r][k] B[k][c] in float.
// ws_gemm: 256 threads, two warpgroups, 48 KiB of dynamic shared memory holding a three-stage ring
//   of (A 64x64, B 64x64) half tiles, each 8 KiB tile at a 1024-byte boundary; full[s] (count 1)
//   and empty[s] (count 128) mbarriers per stage. Thread 0 initializes the barriers
//   (fence.mbarrier_init, __syncthreads).
//   Warpgroup 0 is the producer: it lowers its registers (setmaxnreg.dec 40), warp 0 elects one
//   lane (elect.sync), and that lane, for each of the four 64-wide k-tiles kt, waits until stage
//   s = kt % 3 is empty (parity ((kt / 3) & 1) ^ 1: the first wait on each stage passes at once),
//   arms full[s] with the stage's 16384 bytes (mbarrier.arrive.expect_tx) and issues two 2-D TMA
//   loads (cp.async.bulk.tensor, complete_tx on full[s]): A's box {k0, 0} and B's box {0, k0},
//   both 64 x 64 halves under the 128-byte swizzle (the tensor maps are __grid_constant__
//   CUtensorMap parameters).
//   Warpgroup 1 is the consumer: setmaxnreg.inc 232; for each k-tile it waits on full[s] (parity
//   (kt / 3) & 1), runs wgmma.fence, four wgmma.mma_async.m64n64k16.f32.f16.f16 from 128-byte
//   swizzled descriptors (A K-major: a k16 step moves the start by 32 bytes; B N-major,
//   imm-trans-b 1: a k16 step moves it by 2048 bytes; scale-d 0 only on the very first MMA),
//   wgmma.commit_group, wgmma.wait_group 0, then each of its 128 threads arrives on empty[s].
//   After the last k-tile each consumer thread stores its 32 accumulators.
// Bug variants (template flags):
//   ws_gemm_early_release: the consumer arrives on empty[s] right after the commit, before the
//     wgmma.wait_group that retires the MMAs reading the stage: the producer's refill of the stage
//     (TMA) races with the MMAs' operand reads.
//   ws_gemm_no_empty_wait: the producer never waits on empty[s]: it refills stage 0 for k-tile 3
//     without waiting for the consumer to release it. When the producer runs a round ahead, full[0]
//     completes two phases before the consumer's first wait, whose parity 0 then names phase 2: a
//     deadlock (parity aliasing); in a schedule with a fast consumer, a race of the refill with the
//     MMAs' reads. gpueq checks the first schedule and reports the deadlock.
//   ws_gemm_wrong_parity: the consumer waits on full[s] with the parity flipped: its first wait on
//     each stage passes at once (phase "-1" counts as complete) and the MMAs read a stage the TMA
//     has not filled.
//   ws_gemm_no_final_wait: the consumer skips the wgmma.wait_group after the last k-tile and
//     stores accumulators of MMAs still in flight.
//   ws_gemm_tx_short: the producer arms full[s] with A's 8192 bytes only: the phase completes when
//     A lands, and B's bytes are counted against the next phase.
//   ws_gemm_tx_long: the producer arms full[s] with 1024 bytes more than the two copies deliver: the
//     phase never completes.
// ws_gemm_tma_store (correct): ws_gemm_pipelined with a TMA-store epilogue: the consumer threads
//   write their accumulators to a 64 x 64 float tile after the ring (dynamic shared bytes 49152 ..
//   65535), each runs fence.proxy.async.shared::cta, the consumer warpgroup meets on named barrier
//   1 (bar.sync 1, 128; the producer warpgroup has exited), and consumer thread 0 stores the tile
//   with cp.async.bulk.tensor (bulk group, wait_group.read 0) through a third map, c_map.
// ws_gemm_tma_store_no_fence (bug): the same without the fence.proxy.async: the TMA store (async
//   proxy) reads shared memory written by the generic proxy with only a barrier in between.
// ws_gemm_pipelined (correct): the consumer keeps one k-tile's MMAs in flight: after committing
//   k-tile kt it runs wgmma.wait_group 1 (k-tile kt - 1's MMAs are retired) and releases stage
//   (kt - 1) % 3; k-tile kt + 1's MMAs accumulate into the accumulators still in flight (the ISA
//   orders MMAs of one warpgroup into the same registers); wait_group 0 after the loop.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int M = 64, N = 64, K = 256;
static_assert(M == 64, "one consumer warpgroup covers the 64 rows of C");
constexpr int BK = 64;
constexpr int KT = K / BK;  // 4 k-tiles
constexpr int STAGES = 3;
constexpr int TILE_BYTES = 64 * 64 * 2;           // one 64 x 64 half tile
constexpr int STAGE_BYTES = 2 * TILE_BYTES;       // A and B
constexpr int THREADS = 256;

extern "C" __global__ void ws_gemm_naive(const __half* A, const __half* B, float* C) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += __half2float(A[r * K + k]) * __half2float(B[k * N + c]);
  C[r * N + c] = acc;
}

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// --- mbarrier -------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
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

// --- TMA, warp specialization ---------------------------------------------------------------
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, int c0, int c1, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
          "r"(smem(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem(bar))
      : "memory");
}
__device__ __forceinline__ bool elect_one() {
  uint32_t leader = 0;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  elect.sync _|p, %1;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(leader)
      : "r"(0xffffffffu));
  return leader != 0;
}

// --- wgmma ----------------------------------------------------------------------------------
// The matrix descriptor: start, leading and stride byte offsets (each (x & 0x3FFFF) >> 4), and the
// swizzle mode in bits 62-63 (1: 128B).
__device__ __forceinline__ uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t swizzle) {
  auto enc = [](uint32_t x) { return static_cast<uint64_t>((x & 0x3FFFF) >> 4); };
  return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | swizzle << 62;
}
struct accumulators {
  float d[32];
};
__device__ __forceinline__ void mma(accumulators& a, uint64_t da, uint64_t db, int scale_d) {
  float* d = a.d;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
}
// Ties the accumulators to a point of the instruction stream (no use moves across it).
__device__ __forceinline__ void pin(accumulators& a) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(a.d[i])::"memory");
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait1() { asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

enum bug { OK, EARLY_RELEASE, NO_EMPTY_WAIT, WRONG_PARITY, NO_FINAL_WAIT, TX_SHORT, TX_LONG, NO_PROXY_FENCE };

// Pipelined: the consumer keeps one k-tile's MMAs in flight (wgmma.wait_group 1) and releases the
// previous stage, as CUTLASS's and FlashAttention-3's mainloops do.
// TmaStore: the epilogue writes C to a shared tile, fences it for the async proxy, synchronizes the
// consumer warpgroup on named barrier 1 and one thread stores the tile with a TMA store.
template <bug Bug, bool Pipelined = false, bool TmaStore = false>
__device__ __forceinline__ void ws_gemm(const CUtensorMap* a_map, const CUtensorMap* b_map, float* C,
                                        const CUtensorMap* c_map = nullptr) {
  extern __shared__ __align__(1024) uint8_t ring[];  // STAGES x (A tile, B tile) [, C tile]
  __shared__ __align__(8) uint64_t full[STAGES];
  __shared__ __align__(8) uint64_t empty[STAGES];
  const int t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);     // the producer's arrive.expect_tx (plus the TMA bytes)
      mbar_init(&empty[s], 128);  // every consumer thread
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 128) {  // producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (t < 32 && elect_one()) {
      for (int kt = 0; kt < KT; ++kt) {
        const int s = kt % STAGES;
        if (Bug != NO_EMPTY_WAIT) mbar_wait(&empty[s], ((kt / STAGES) & 1) ^ 1);
        uint8_t* sa = ring + s * STAGE_BYTES;
        mbar_arrive_expect_tx(&full[s], Bug == TX_SHORT  ? STAGE_BYTES - TILE_BYTES
                                        : Bug == TX_LONG ? STAGE_BYTES + 1024
                                                         : STAGE_BYTES);
        tma_load_2d(sa, a_map, kt * BK, 0, &full[s]);               // A[0:64][k0:k0+64]
        tma_load_2d(sa + TILE_BYTES, b_map, 0, kt * BK, &full[s]);  // B[k0:k0+64][0:64]
      }
    }
  } else {  // consumer warpgroup
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    accumulators acc;
#pragma unroll 1
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt % STAGES;
      mbar_wait(&full[s], ((kt / STAGES) & 1) ^ (Bug == WRONG_PARITY ? 1 : 0));
      const uint32_t sa = smem(ring + s * STAGE_BYTES), sb = sa + TILE_BYTES;
      pin(acc);
      wg_fence();
#pragma unroll
      for (int k = 0; k < BK / 16; ++k)
        mma(acc, descriptor(sa + 32 * k, 16, 1024, 1), descriptor(sb + 2048 * k, 16, 1024, 1), kt > 0 || k > 0);
      wg_commit();
      if (Pipelined) {
        wg_wait1();  // the previous k-tile's MMAs are retired: release its stage
        if (kt > 0) mbar_arrive(&empty[(kt - 1) % STAGES]);
        continue;
      }
      if (Bug == EARLY_RELEASE) mbar_arrive(&empty[s]);
      if (!(Bug == NO_FINAL_WAIT && kt == KT - 1)) wg_wait0();
      pin(acc);
      if (Bug != EARLY_RELEASE) mbar_arrive(&empty[s]);
    }
    if (Pipelined) {
      wg_wait0();
      pin(acc);
      mbar_arrive(&empty[(KT - 1) % STAGES]);
    }
    const int ct = t - 128, w = ct / 32, lane = ct % 32;
    float* sc = reinterpret_cast<float*>(ring + STAGES * STAGE_BYTES);  // C tile (64 x 64 floats)
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      int r = 16 * w + lane / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      if (TmaStore)
        sc[r * N + c] = acc.d[i];
      else
        C[r * N + c] = acc.d[i];
    }
    if (TmaStore) {
      if (Bug != NO_PROXY_FENCE) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("bar.sync 1, 128;" ::: "memory");  // the consumer warpgroup only
      if (ct == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(c_map),
                     "r"(0), "r"(0), "r"(smem(sc))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      }
    }
  }
}

#define WS_GEMM_ENTRY(name, ...)                                                                    \
  extern "C" __global__ void __launch_bounds__(THREADS, 1)                                         \
      name(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float* C) { \
    ws_gemm<__VA_ARGS__>(&a_map, &b_map, C);                                                        \
  }
WS_GEMM_ENTRY(ws_gemm, OK)
WS_GEMM_ENTRY(ws_gemm_pipelined, OK, true)
WS_GEMM_ENTRY(ws_gemm_early_release, EARLY_RELEASE)
WS_GEMM_ENTRY(ws_gemm_no_empty_wait, NO_EMPTY_WAIT)
WS_GEMM_ENTRY(ws_gemm_wrong_parity, WRONG_PARITY)
WS_GEMM_ENTRY(ws_gemm_no_final_wait, NO_FINAL_WAIT)
WS_GEMM_ENTRY(ws_gemm_tx_short, TX_SHORT)
WS_GEMM_ENTRY(ws_gemm_tx_long, TX_LONG)
#define WS_GEMM_TMA_STORE_ENTRY(name, ...)                                                        \
  extern "C" __global__ void __launch_bounds__(THREADS, 1)                                         \
      name(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,    \
           const __grid_constant__ CUtensorMap c_map) {                                             \
    ws_gemm<__VA_ARGS__>(&a_map, &b_map, nullptr, &c_map);                                          \
  }
WS_GEMM_TMA_STORE_ENTRY(ws_gemm_tma_store, OK, true, true)
WS_GEMM_TMA_STORE_ENTRY(ws_gemm_tma_store_no_fence, NO_PROXY_FENCE, true, true)
