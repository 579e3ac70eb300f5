// Inline PTX: named barriers, mma.sync, ldmatrix, cp.async, mbarrier, wmma.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void named_barriers(float* data) {
  int t = threadIdx.x;
  if (t < 64) {
    data[t] = t;
    asm volatile("bar.arrive 1, 128;");
  } else {
    asm volatile("bar.sync 1, 128;");
    data[t] = data[t - 64];
  }
  asm volatile("barrier.sync 0;");
}

__global__ void tensor_core(const half* a, const half* b, float* c) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[16 * 8];
  int t = threadIdx.x;
  unsigned sa_addr = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(t % 16) * 16]));
  unsigned sb_addr = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(t % 16) * 8]));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(sa_addr), "l"(a + t * 8));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sb_addr), "l"(b + t * 4));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  unsigned a0, a1, a2, a3, b0, b1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(sa_addr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(b0), "=r"(b1) : "r"(sb_addr));
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c[t * 4 + 0] = d0; c[t * 4 + 1] = d1; c[t * 4 + 2] = d2; c[t * 4 + 3] = d3;
}

__global__ void mbarrier_wait(float* out) {
  __shared__ __align__(8) unsigned long long bar;
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(addr), "r"(blockDim.x));
  __syncthreads();
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr));
  asm volatile("{\n\t.reg .pred p;\nwait:\n\tmbarrier.test_wait.shared.b64 p, [%0], %1;\n\t@!p bra wait;\n}"
               :: "r"(addr), "l"(state));
  out[threadIdx.x] = 1.0f;
}

__global__ void wmma_gemm(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
