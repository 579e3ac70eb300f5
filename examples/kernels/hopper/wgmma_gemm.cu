// One warpgroup computes a 64x64 tile C = A B with Hopper's asynchronous warpgroup MMA
// (wgmma.mma_async.m64n64k16.f32.f16.f16), A (64 x K) and B (K x 64) row-major halves, C float,
// K = 64 (four k16 steps); against a naive one-thread-per-element product.
//
// gemm_naive: grid 4x4, block 16x16; C[r][c] = sum_k A[r][k] B[k][c] in float.
// gemm_wgmma_plain: 128 threads. cp.async copies A and B into shared memory in the descriptors'
//   no-swizzle layouts (A K-major: 8x16-byte core matrices, LBO 128 between the two core matrices
//   of a k16 step, SBO 1024 between 8-row groups; B N-major, imm-trans-b = 1: core matrices of 8
//   k-rows x 8 columns, LBO 128 between k-groups, SBO 1024 between 8-column groups); then
//   wgmma.fence, four chained wgmma.mma_async (scale-d 0 on the first), one commit_group and
//   wait_group 0; each thread stores its 32 accumulators (row 16 warp + lane/4 + 8 ((i/2)%2),
//   column 8 (i/4) + 2 (lane%4) + i%2).
// gemm_wgmma_sw128: the same with both operands in the 128-byte swizzle layout (A K-major, rows of
//   64 halves at 128 bytes, SBO 1024; B N-major, k-rows of 64 halves at 128 bytes, SBO 1024; 16-
//   byte chunk c of row r of each 1024-byte atom stored at chunk c ^ (r % 8)), shared arrays
//   aligned to 1024 bytes; a k16 step advances A's start address by 32 bytes and B's by 2048.
// gemm_wgmma_early_read (bug): as gemm_wgmma_plain, but the first accumulator is stored before
//   the wgmma.wait_group that retires the MMA: an in-flight accumulator read.
// gemm_wgmma_early_reuse (bug): as gemm_wgmma_plain, but after the commit the block synchronizes
//   and clears A's shared tile (to reuse it) before the wgmma.wait_group: the MMA may still be
//   reading it, a race between each thread's st.shared and the MMA's reads.
// gemm_wgmma_stores: as gemm_wgmma_plain, but the threads fill shared memory with plain 16-byte
//   loads and st.shared (the generic proxy) instead of cp.async; each thread's fence.proxy.async
//   before the __syncthreads makes the stores visible to the MMAs' async-proxy reads.
// gemm_wgmma_stores_no_fence (bug): the same without the proxy fence: the MMAs' reads are not
//   ordered after the stores in the async proxy (PTX ISA, "Proxies"), a race with the barrier but
//   no fence.proxy.async between.
#include <cstdint>
#include <cuda_fp16.h>

constexpr int M = 64, N = 64, K = 64;

extern "C" __global__ void gemm_naive(const __half* A, const __half* B, float* C) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += __half2float(A[r * K + k]) * __half2float(B[k * N + c]);
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
// swizzle mode in bits 62-63 (0 none, 1 128B).
__device__ __forceinline__ uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t swizzle) {
  auto enc = [](uint32_t x) { return static_cast<uint64_t>((x & 0x3FFFF) >> 4); };
  return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | swizzle << 62;
}

struct accumulators {
  float d[32];
};

// D (+)= A B for one k16 step; scale_d 0 ignores the accumulators' old values.
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
// Ties the accumulators to a point of the instruction stream (the compiler must not move their
// uses across it), as CUTLASS's warpgroup_fence_operand does.
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

// No-swizzle layouts. A (m, k) at (m / 8) * 1024 + (k / 8) * 128 + (m % 8) * 16 + (k % 8) * 2;
// B (k, n) at (n / 8) * 1024 + (k / 8) * 128 + (k % 8) * 16 + (n % 8) * 2. One 16-byte chunk is 8
// consecutive halves of a row of A or of B.
__device__ __forceinline__ void load_plain(const __half* A, const __half* B, __half* sA, __half* sB) {
  for (int q = threadIdx.x; q < M * K / 8; q += blockDim.x) {
    int m = q / (K / 8), k8 = q % (K / 8);  // A row m, halves 8 k8 .. 8 k8 + 7
    copy16(reinterpret_cast<char*>(sA) + (m / 8) * 1024 + k8 * 128 + (m % 8) * 16, A + m * K + 8 * k8);
    int k = q / (N / 8), n8 = q % (N / 8);  // B row k, halves 8 n8 .. 8 n8 + 7
    copy16(reinterpret_cast<char*>(sB) + n8 * 1024 + (k / 8) * 128 + (k % 8) * 16, B + k * N + 8 * n8);
  }
  copies_done();
  __syncthreads();
}

extern "C" __global__ void gemm_wgmma_plain(const __half* A, const __half* B, float* C) {
  __shared__ __align__(128) __half sA[M * K], sB[K * N];
  load_plain(A, B, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 16; ++s)
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 1024, 0), descriptor(smem(sB) + 256 * s, 128, 1024, 0), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

extern "C" __global__ void gemm_wgmma_early_read(const __half* A, const __half* B, float* C) {
  __shared__ __align__(128) __half sA[M * K], sB[K * N];
  load_plain(A, B, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 16; ++s)
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 1024, 0), descriptor(smem(sB) + 256 * s, 128, 1024, 0), s > 0);
  commit();
  pin(acc);
  C[threadIdx.x] = acc.d[0];  // the bug: the MMA is still in flight
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

// 128-byte swizzle: chunk c (16 bytes) of 128-byte row r of a 1024-byte atom sits at chunk c ^ (r % 8).
// A (m, k): row m at (m / 8) * 1024 + (m % 8) * 128, chunk k / 8; B (k, n): row k at (k / 8) * 1024 +
// (k % 8) * 128, chunk n / 8.
__device__ __forceinline__ uint32_t swizzle128(uint32_t row, uint32_t chunk) {
  return (row / 8) * 1024 + (row % 8) * 128 + ((chunk ^ (row % 8)) * 16);
}

extern "C" __global__ void gemm_wgmma_sw128(const __half* A, const __half* B, float* C) {
  __shared__ __align__(1024) __half sA[M * K];
  __shared__ __align__(1024) __half sB[K * N];
  for (int q = threadIdx.x; q < M * K / 8; q += blockDim.x) {
    int r = q / 8, c = q % 8;  // row r of A and of B, chunk c
    copy16(reinterpret_cast<char*>(sA) + swizzle128(r, c), A + r * K + 8 * c);
    copy16(reinterpret_cast<char*>(sB) + swizzle128(r, c), B + r * N + 8 * c);
  }
  copies_done();
  __syncthreads();
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 16; ++s)
    mma(acc, descriptor(smem(sA) + 32 * s, 16, 1024, 1), descriptor(smem(sB) + 2048 * s, 16, 1024, 1), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

extern "C" __global__ void gemm_wgmma_early_reuse(const __half* A, const __half* B, float* C) {
  __shared__ __align__(128) __half sA[M * K], sB[K * N];
  load_plain(A, B, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 16; ++s)
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 1024, 0), descriptor(smem(sB) + 256 * s, 128, 1024, 0), s > 0);
  commit();
  __syncthreads();
  for (int i = threadIdx.x; i < M * K; i += blockDim.x) sA[i] = __float2half(0.0f);  // the bug: still in use
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

// The no-swizzle layouts of load_plain, filled by 16-byte register loads and st.shared; with
// `fence`, each thread's fence.proxy.async.shared::cta before the barrier.
template <bool fence_proxy>
__device__ __forceinline__ void store_plain(const __half* A, const __half* B, __half* sA, __half* sB) {
  for (int q = threadIdx.x; q < M * K / 8; q += blockDim.x) {
    int m = q / (K / 8), k8 = q % (K / 8);
    *reinterpret_cast<uint4*>(reinterpret_cast<char*>(sA) + (m / 8) * 1024 + k8 * 128 + (m % 8) * 16) =
        *reinterpret_cast<const uint4*>(A + m * K + 8 * k8);
    int k = q / (N / 8), n8 = q % (N / 8);
    *reinterpret_cast<uint4*>(reinterpret_cast<char*>(sB) + n8 * 1024 + (k / 8) * 128 + (k % 8) * 16) =
        *reinterpret_cast<const uint4*>(B + k * N + 8 * n8);
  }
  if (fence_proxy) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}

template <bool fence_proxy>
__device__ __forceinline__ void gemm_stores(const __half* A, const __half* B, float* C) {
  __shared__ __align__(128) __half sA[M * K], sB[K * N];
  store_plain<fence_proxy>(A, B, sA, sB);
  accumulators acc;
  fence();
#pragma unroll
  for (int s = 0; s < K / 16; ++s)
    mma(acc, descriptor(smem(sA) + 256 * s, 128, 1024, 0), descriptor(smem(sB) + 256 * s, 128, 1024, 0), s > 0);
  commit();
  wait_all();
  pin(acc);
  store_tile(acc, C);
}

extern "C" __global__ void gemm_wgmma_stores(const __half* A, const __half* B, float* C) { gemm_stores<true>(A, B, C); }

extern "C" __global__ void gemm_wgmma_stores_no_fence(const __half* A, const __half* B, float* C) {
  gemm_stores<false>(A, B, C);
}
