// The issue-20 timing kernel: ws_gemm_tn.cu's warp-specialized mainloop on a 128 x 128 tile of
// C per CTA, as CUTLASS's and Triton's Hopper GEMMs tile it: C = A Bt^T with A (128 x K) and Bt
// (128 x K) halves, both K-major, C (128 x 128) float. K is a kernel argument (a multiple of 64):
// the corpus pair runs K = 256, the timing benchmark (benchmarks/ws_gemm_128_k4096.json) K = 4096.
//
// ws_gemm_128_naive: grid 8x8, block 16x16; C[r][c] = sum_k A[r][k] Bt[c][k] in float.
// ws_gemm_128: 384 threads; warpgroup 0 produces (setmaxnreg.dec 40, elect.sync), warpgroups 1
//   and 2 consume (setmaxnreg.inc 232), each the 64 rows 64g..64g+63 of C. A three-stage ring
//   (96 KiB of dynamic shared memory): per stage A's 128 x 64 tile and Bt's 128 x 64 tile (16 KiB
//   each), each loaded by one 2-D TMA copy under the 128-byte swizzle (boxes {64, 128}) and
//   completed on full[s] (32768 bytes); K / 64 k-tiles of 64. Each consumer warpgroup runs four
//   wgmma.mma_async.m64n128k16.f32.f16.f16 per k-tile from K-major 128B-swizzled descriptors (its
//   A rows start 8 KiB into the stage's A tile; a k16 step moves each start address by 32 bytes),
//   wgmma.wait_group 0, then its 128 threads arrive on empty[s] (count 256); 64 accumulators per
//   thread are stored at the end.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int M = 128, N = 128;
constexpr int CONSUMERS = M / 64;  // consumer warpgroups, 64 rows of C each
constexpr int BK = 64;
constexpr int STAGES = 3;
constexpr int A_BYTES = M * BK * 2;    // 16 KiB
constexpr int B_BYTES = N * BK * 2;    // 16 KiB
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int THREADS = 128 * (1 + CONSUMERS);

extern "C" __global__ void ws_gemm_128_naive(const __half* A, const __half* Bt, float* C, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += __half2float(A[r * K + k]) * __half2float(Bt[c * K + k]);
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
  float d[64];
};
__device__ __forceinline__ void mma(accumulators& a, uint64_t da, uint64_t db, int scale_d) {
  float* d = a.d;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}
__device__ __forceinline__ void pin(accumulators& a) {
#pragma unroll
  for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(a.d[i])::"memory");
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    ws_gemm_128(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float* C, int K) {
  const int KT = K / BK;
  extern __shared__ __align__(1024) uint8_t ring[];  // STAGES x (A tile, Bt tile)
  __shared__ __align__(8) uint64_t full[STAGES];
  __shared__ __align__(8) uint64_t empty[STAGES];
  const int t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 128 * CONSUMERS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 128) {  // producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (t < 32 && elect_one()) {
      for (int kt = 0; kt < KT; ++kt) {
        const int s = kt % STAGES;
        mbar_wait(&empty[s], ((kt / STAGES) & 1) ^ 1);
        uint8_t* sa = ring + s * STAGE_BYTES;
        mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
        tma_load_2d(sa, &a_map, kt * BK, 0, &full[s]);            // A[0:128][k0:k0+64]
        tma_load_2d(sa + A_BYTES, &b_map, kt * BK, 0, &full[s]);  // Bt[0:128][k0:k0+64]
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int g = (t - 128) / 128;  // the consumer warpgroup: rows 64g..64g+63 of C
  accumulators acc;
#pragma unroll 1
  for (int kt = 0; kt < KT; ++kt) {
    const int s = kt % STAGES;
    mbar_wait(&full[s], (kt / STAGES) & 1);
    const uint32_t sa = smem(ring + s * STAGE_BYTES) + g * (64 * BK * 2), sb = smem(ring + s * STAGE_BYTES) + A_BYTES;
    pin(acc);
    wg_fence();
#pragma unroll
    for (int k = 0; k < BK / 16; ++k)
      mma(acc, descriptor(sa + 32 * k, 16, 1024, 1), descriptor(sb + 32 * k, 16, 1024, 1), kt > 0 || k > 0);
    wg_commit();
    wg_wait0();
    pin(acc);
    mbar_arrive(&empty[s]);
  }
  const int ct = (t - 128) % 128, w = ct / 32, lane = ct % 32;
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    int r = 64 * g + 16 * w + lane / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    C[r * N + c] = acc.d[i];
  }
}
