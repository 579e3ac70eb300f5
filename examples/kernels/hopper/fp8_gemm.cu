// One warpgroup computes a 64x64 tile C = A Bt^T from fp8 operands with Hopper's warpgroup MMA
// (wgmma.mma_async.m64n64k32.f32.e4m3.e4m3): A (64 x K) and Bt (64 x K, B transposed: the
// "TN" GEMM, both operands K-major as the ISA requires for 8-bit types) row-major e4m3 bytes,
// C float, K = 64 (two k32 steps); against a naive kernel that reads the bytes and converts them.
//
// gemm_fp8_naive: grid 4x4, block 16x16; C[r][c] = sum_k float(A[r][k]) float(Bt[c][k]), each
//   byte converted as __nv_fp8_e4m3 -> float compiles (ld.global.u8, cvt.rn.f16x2.e4m3x2,
//   cvt.f32.f16).
// gemm_fp8_wgmma: 128 threads. cp.async copies A and Bt into shared memory in the no-swizzle
//   K-major layout (core matrices of 8 rows x 16 bytes; element (m, k) at (m / 8) * 512 +
//   (k / 16) * 128 + (m % 8) * 16 + k % 16: LBO 128 between the core matrices along K, SBO 512
//   between 8-row groups); then wgmma.fence, two chained wgmma.mma_async (scale-d 0 on the first;
//   a k32 step advances both start addresses by 256 bytes), commit_group and wait_group 0; each
//   thread stores its 32 accumulators (row 16 warp + lane/4 + 8 ((i/2)%2), column 8 (i/4) +
//   2 (lane%4) + i%2).
// gemm_fp8_wgmma_sw64: the same with both operands in the 64-byte swizzle layout (rows of 64
//   bytes, 512-byte atoms of 8 rows, SBO 512; 16-byte chunk c of row r stored at chunk
//   c ^ ((r % 8) / 2), the XOR of address bits 4-5 with bits 7-8), tiles aligned to 512 bytes; a
//   k32 step advances the start addresses by 32 bytes.
// gemm_fp8_wgmma_wrong_swizzle (bug): the sw64 kernel's tiles read through descriptors that say
//   "no swizzle" (LBO 128, SBO 512): the MMAs read other bytes than the tiles' rows hold.
#include <cstdint>
#include <cuda_fp8.h>

constexpr int M = 64, N = 64, K = 64;

extern "C" __global__ void gemm_fp8_naive(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, float* C) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += float(A[r * K + k]) * float(Bt[c * K + k]);
  C[r * N + c] = acc;
}

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void copy16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void copies_done() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
}
// The matrix descriptor: start, leading and stride byte offsets (each (x & 0x3FFFF) >> 4), and the
// swizzle mode in bits 62-63 (0 none, 2 64B).
__device__ __forceinline__ uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t swizzle) {
  auto enc = [](uint32_t x) { return static_cast<uint64_t>((x & 0x3FFFF) >> 4); };
  return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | swizzle << 62;
}

struct accumulators {
  float d[32];
};

// D (+)= A B for one k32 step of e4m3 operands; scale_d 0 ignores the accumulators' old values.
// The fp8 form has no imm-trans operands (K-major only).
__device__ __forceinline__ void mma(accumulators& a, uint64_t da, uint64_t db, int scale_d) {
  float* d = a.d;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(scale_d));
}
// Ties the accumulators to a point of the instruction stream, as CUTLASS's warpgroup_fence_operand does.
__device__ __forceinline__ void pin(accumulators& a) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(a.d[i])::"memory");
}
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

__device__ __forceinline__ void store_tile(const accumulators& a, float* C) {
  int t = threadIdx.x, w = t / 32, lane = t % 32;
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    int r = 16 * w + lane / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    C[r * N + c] = a.d[i];
  }
}

extern "C" __global__ void gemm_fp8_wgmma(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, float* C) {
  __shared__ __align__(128) __nv_fp8_e4m3 sA[M * K], sB[N * K];
  // 16-byte chunk q: row q / 4, bytes 16 (q % 4) .. of that row, of A and of Bt.
  for (int q = threadIdx.x; q < M * K / 16; q += blockDim.x) {
    int row = q / 4, kc = q % 4;
    uint32_t at = (row / 8) * 512 + kc * 128 + (row % 8) * 16;
    copy16(reinterpret_cast<char*>(sA) + at, A + row * K + 16 * kc);
    copy16(reinterpret_cast<char*>(sB) + at, Bt + row * K + 16 * kc);
  }
  copies_done();
  __syncthreads();
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 32; ++s)
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 512, 0), descriptor(smem(sB) + 256 * s, 128, 512, 0), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

// The 64-byte swizzle layout: 16-byte chunk c of 64-byte row r at chunk c ^ ((r % 8) / 2).
__device__ __forceinline__ void load_sw64(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, __nv_fp8_e4m3* sA,
                                          __nv_fp8_e4m3* sB) {
  for (int q = threadIdx.x; q < M * K / 16; q += blockDim.x) {
    int row = q / 4, c = q % 4;  // row `row` (64 bytes) of A and of Bt, chunk c
    uint32_t at = (row / 8) * 512 + (row % 8) * 64 + ((c ^ ((row % 8) / 2)) * 16);
    copy16(reinterpret_cast<char*>(sA) + at, A + row * K + 16 * c);
    copy16(reinterpret_cast<char*>(sB) + at, Bt + row * K + 16 * c);
  }
  copies_done();
  __syncthreads();
}

extern "C" __global__ void gemm_fp8_wgmma_sw64(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, float* C) {
  __shared__ __align__(512) __nv_fp8_e4m3 sA[M * K];
  __shared__ __align__(512) __nv_fp8_e4m3 sB[N * K];
  load_sw64(A, Bt, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 32; ++s)
    mma(acc, descriptor(smem(sA) + 32 * s, 16, 512, 2), descriptor(smem(sB) + 32 * s, 16, 512, 2), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

extern "C" __global__ void gemm_fp8_wgmma_wrong_swizzle(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* Bt, float* C) {
  __shared__ __align__(512) __nv_fp8_e4m3 sA[M * K];
  __shared__ __align__(512) __nv_fp8_e4m3 sB[N * K];
  load_sw64(A, Bt, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 32; ++s)  // the bug: swizzle mode 0 for tiles stored swizzled
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 512, 0), descriptor(smem(sB) + 256 * s, 128, 512, 0), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}
