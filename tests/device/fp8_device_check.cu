// Device check of gpueq's fp8 model (issue 20 item 8) on an sm_90a GPU (H100/H200): the cvt
// encodings tests/exec/fp8_test.cpp expects (e4m3/e5m2, .satfinite, .relu, NaN, -inf), the wgmma
// m64n8k32 register-A fragment layout of exec/wgmma_layout.hpp (a_element_8bit), and the three
// kernels of examples/kernels/hopper/fp8_gemm.cu against a double-precision product. Prints
// PASS/FAIL lines and exits 1 on a failure. Not part of the build (no test needs a GPU):
//   nvcc -gencode arch=compute_90a,code=sm_90a -O2 -o fp8_device_check tests/device/fp8_device_check.cu
//   ./fp8_device_check
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include "../../examples/kernels/hopper/fp8_gemm.cu"

__global__ void cvt_codes(const float* x, uint16_t* q, int n) {
  int i = threadIdx.x;
  if (2 * i + 1 >= 2 * n) return;
  uint16_t a, b, c, d;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(a) : "f"(x[2 * i]), "f"(x[2 * i + 1]));
  asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(b) : "f"(x[2 * i]), "f"(x[2 * i + 1]));
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(c) : "f"(x[2 * i]), "f"(x[2 * i + 1]));
  asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(d) : "f"(x[2 * i]), "f"(x[2 * i + 1]));
  q[4 * i] = a; q[4 * i + 1] = b; q[4 * i + 2] = c; q[4 * i + 3] = d;
}

// m64n8k32 e4m3 with A from registers: thread t's register r byte j = code of Af[16 t + 4 r + j];
// B from a no-swizzle K-major descriptor (Bt 8 x 32 bytes: n at n*16 + (k/16)*128 + k%16).
__global__ void tile_regs(const uint32_t* Af, const uint8_t* Bt, float* Y) {
  __shared__ __align__(128) uint8_t sB[256];
  int t = threadIdx.x;
  for (int i = t; i < 256; i += 128) { int n = i / 32, k = i % 32; sB[n * 16 + (k / 16) * 128 + k % 16] = Bt[i]; }
  __syncthreads();
  uint32_t a0 = Af[4 * t], a1 = Af[4 * t + 1], a2 = Af[4 * t + 2], a3 = Af[4 * t + 3];
  uint64_t db = descriptor(smem(sB), 128, 256, 0);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1;\n}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  asm volatile("" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)::"memory");
  Y[4 * t] = d0; Y[4 * t + 1] = d1; Y[4 * t + 2] = d2; Y[4 * t + 3] = d3;
}

static double e4m3_value(uint8_t c) {
  int e = (c >> 3) & 15, m = c & 7; double s = (c & 0x80) ? -1 : 1;
  if (e == 15 && m == 7) return NAN;
  return e == 0 ? s * m * std::ldexp(1.0, -9) : s * (1 + m / 8.0) * std::ldexp(1.0, e - 7);
}
static uint8_t small_code(uint32_t h) {  // an e4m3 code of an integer in [-8, 8]
  static const uint8_t pos[9] = {0x00, 0x38, 0x40, 0x44, 0x48, 0x4a, 0x4c, 0x4e, 0x50};
  int v = int(h % 17) - 8; return v < 0 ? (0x80 | pos[-v]) : pos[v];
}

int main() {
  int fails = 0;
  // 1. cvt codes: the pairs of tests/exec/fp8_test.cpp plus NaN/-inf.
  std::vector<float> x = {1, 448, 0.3f, 1000, -1000, -0.3f, 1.0625f, 1.1875f, 464, 0.001953125f, 0.0009765625f,
                          0.00146484375f, 240, 17, -448.5f, 3.5f, NAN, -INFINITY};
  uint16_t want[9][4] = {{0x387e, 0x387e, 0x3c5f, 0x3c5f}, {0x2a7e, 0x2a7e, 0x3564, 0x3564}, {0xfeaa, 0x0000, 0xe4b5, 0x0000},
                         {0x383a, 0x383a, 0x3c3d, 0x3c3d}, {0x7e01, 0x7e01, 0x5f18, 0x5f18}, {0x0001, 0x0001, 0x1416, 0x1416},
                         {0x7758, 0x7758, 0x5c4c, 0x5c4c}, {0xfe46, 0x0046, 0xdf43, 0x0043}, {0x7ffe, 0, 0x7ffb, 0}};
  float* dx; uint16_t* dq; cudaMalloc(&dx, x.size() * 4); cudaMalloc(&dq, 9 * 4 * 2);
  cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
  cvt_codes<<<1, 9>>>(dx, dq, 9);
  uint16_t q[36]; cudaMemcpy(q, dq, sizeof q, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 9; ++i) {
    printf("cvt pair %d: e4m3 %04x relu %04x e5m2 %04x relu %04x\n", i, q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]);
    for (int j = 0; j < 4; ++j)
      if (!(i == 8 && (j == 1 || j == 3)) && q[4 * i + j] != want[i][j]) { printf("FAIL cvt pair %d form %d: want %04x\n", i, j, want[i][j]); ++fails; }
  }
  // 2. wgmma k32 register-A layout.
  std::vector<uint8_t> af(128 * 16), bt(256);
  for (int i = 0; i < 128 * 16; ++i) af[i] = small_code(i * 2654435761u >> 7);
  for (int i = 0; i < 256; ++i) bt[i] = small_code(i * 40503u + 7);
  uint32_t* dAf; uint8_t* dBt; float* dY; cudaMalloc(&dAf, af.size()); cudaMalloc(&dBt, 256); cudaMalloc(&dY, 512 * 4);
  cudaMemcpy(dAf, af.data(), af.size(), cudaMemcpyHostToDevice); cudaMemcpy(dBt, bt.data(), 256, cudaMemcpyHostToDevice);
  tile_regs<<<1, 128>>>(dAf, dBt, dY);
  std::vector<float> y(512); cudaMemcpy(y.data(), dY, 512 * 4, cudaMemcpyDeviceToHost);
  double A[64][32];
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 16; ++i) {  // gpueq's a_element_8bit
      int w = t / 32, lane = t % 32, g = lane / 4, qd = lane % 4;
      A[16 * w + g + 8 * ((i >> 2) & 1)][4 * qd + (i & 3) + 16 * (i >> 3)] = e4m3_value(af[16 * t + i]);
    }
  int bad = 0;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 4; ++i) {
      int w = t / 32, lane = t % 32, r = 16 * w + lane / 4 + 8 * ((i >> 1) & 1), c = 2 * (lane % 4) + (i & 1);
      double s = 0; for (int k = 0; k < 32; ++k) s += A[r][k] * e4m3_value(bt[c * 32 + k]);
      bad += s != y[4 * t + i];
    }
  printf("%s wgmma k32 register-A layout: %d of 512 elements differ\n", bad ? "FAIL" : "PASS", bad); fails += bad != 0;
  // 3. the corpus kernels.
  std::vector<uint8_t> a(64 * 64), b(64 * 64);
  for (int i = 0; i < 4096; ++i) { a[i] = small_code(i * 2246822519u >> 5); b[i] = small_code(i * 3266489917u >> 9); }
  uint8_t *da, *db; float* dc; cudaMalloc(&da, 4096); cudaMalloc(&db, 4096); cudaMalloc(&dc, 4096 * 4);
  cudaMemcpy(da, a.data(), 4096, cudaMemcpyHostToDevice); cudaMemcpy(db, b.data(), 4096, cudaMemcpyHostToDevice);
  for (int kern = 0; kern < 3; ++kern) {
    cudaMemset(dc, 0, 4096 * 4);
    auto A8 = reinterpret_cast<const __nv_fp8_e4m3*>(da); auto B8 = reinterpret_cast<const __nv_fp8_e4m3*>(db);
    if (kern == 0) gemm_fp8_naive<<<dim3(4, 4), dim3(16, 16)>>>(A8, B8, dc);
    if (kern == 1) gemm_fp8_wgmma<<<1, 128>>>(A8, B8, dc);
    if (kern == 2) gemm_fp8_wgmma_sw64<<<1, 128>>>(A8, B8, dc);
    std::vector<float> c(4096); cudaError_t e = cudaMemcpy(c.data(), dc, 4096 * 4, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < 64; ++r)
      for (int cc = 0; cc < 64; ++cc) {
        double s = 0; for (int k = 0; k < 64; ++k) s += e4m3_value(a[r * 64 + k]) * e4m3_value(b[cc * 64 + k]);
        wrong += s != c[r * 64 + cc];
      }
    printf("%s fp8_gemm kernel %d (%s): %d of 4096 differ (%s)\n", wrong ? "FAIL" : "PASS", kern,
           kern == 0 ? "naive" : kern == 1 ? "wgmma" : "wgmma_sw64", wrong, cudaGetErrorString(e));
    fails += wrong != 0;
  }
  printf("%s: %d failures\n", fails ? "FAIL" : "PASS", fails);
  return fails != 0;
}
