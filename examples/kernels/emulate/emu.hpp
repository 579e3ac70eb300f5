// Host emulation of the CUDA subset the kernel corpus uses, for cross-checking expected verdicts
// without a GPU (examples/kernels/emulate/run.py). One std::thread per GPU thread, one CTA at a
// time; __syncthreads and __syncwarp are std::barriers, shuffles exchange through per-warp slots,
// named barriers count arriving threads. WMMA fragments hold the whole 16x16 tile in every lane
// (a layout of our own, consistent between fragments); ldmatrix and mma.sync.m16n8k16 follow the
// PTX ISA fragment layouts; cp.async copies at once. Not part of gpueq: its semantics are the
// GPU's (float32, real scheduling), so racy kernels give schedule-dependent results.
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <stdint.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct uint3 { unsigned x = 0, y = 0, z = 0; };
struct dim3 { unsigned x = 1, y = 1, z = 1; };
inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }

using __half = _Float16;
inline float __half2float(__half h) { return (float)h; }
inline __half __float2half(float f) { return (__half)f; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
#include <math.h>

namespace emu {
struct counting_barrier {  // bar.sync / bar.arrive with a thread count
    std::mutex m; std::condition_variable cv; int arrived = 0; unsigned long gen = 0;
    void arrive(int count, bool wait) {
        std::unique_lock<std::mutex> l(m);
        unsigned long g = gen;
        if (++arrived == count) { arrived = 0; ++gen; cv.notify_all(); return; }
        if (wait) cv.wait(l, [&] { return gen != g; });
    }
};
struct cta_state {
    std::unique_ptr<std::barrier<>> block;
    std::vector<std::unique_ptr<std::barrier<>>> warp;
    std::vector<std::vector<uint64_t>> slots;   // per warp, 32 lanes x 8 words
    counting_barrier named[16];
};
inline cta_state* cta;
inline thread_local unsigned tid_linear;
inline unsigned lane() { return tid_linear % 32; }
inline unsigned warp_id() { return tid_linear / 32; }
inline std::barrier<>& wbar() { return *cta->warp[warp_id()]; }
inline uint64_t* slot(unsigned l) { return &cta->slots[warp_id()][l * 8]; }

template <class F>
void launch(dim3 grid, dim3 block, F&& body) {
    gridDim = grid; blockDim = block;
    const unsigned n = block.x * block.y * block.z;
    for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
    for (unsigned bx = 0; bx < grid.x; ++bx) {
        cta_state st;
        st.block = std::make_unique<std::barrier<>>(n);
        const unsigned warps = (n + 31) / 32;
        for (unsigned w = 0; w < warps; ++w) {
            st.warp.push_back(std::make_unique<std::barrier<>>(std::min(32u, n - 32 * w)));
            st.slots.emplace_back(32 * 8);
        }
        cta = &st;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < n; ++t)
            ts.emplace_back([&, t] {
                tid_linear = t;
                threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
                blockIdx = {bx, by, bz};
                body();
                wbar().arrive_and_drop();
                cta->block->arrive_and_drop();
            });
        for (auto& t : ts) t.join();
    }
}
}  // namespace emu

inline void __syncthreads() { emu::cta->block->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::wbar().arrive_and_wait(); }

template <class T>
T emu_shfl(T v, int src_lane) {
    static_assert(sizeof(T) <= 8);
    uint64_t bits = 0; std::memcpy(&bits, &v, sizeof(T));
    emu::slot(emu::lane())[0] = bits;
    emu::wbar().arrive_and_wait();
    uint64_t r = emu::slot(src_lane)[0];
    emu::wbar().arrive_and_wait();
    T out; std::memcpy(&out, &r, sizeof(T)); return out;
}
template <class T> T __shfl_xor_sync(unsigned, T v, int m) { return emu_shfl(v, emu::lane() ^ m); }
template <class T> T __shfl_down_sync(unsigned, T v, int d) {
    int s = emu::lane() + d; return emu_shfl(v, s < 32 ? s : (int)emu::lane());
}
template <class T> T __shfl_sync(unsigned, T v, int s) { return emu_shfl(v, s); }

// wmma: every lane holds the whole 16x16 tile (a layout of our own, consistent between fragments)
namespace nvcuda::wmma {
struct matrix_a {}; struct matrix_b {}; struct accumulator {};
struct row_major {}; struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment { static constexpr int num_elements = 256; float x[256]; };
template <class F> void fill_fragment(F& f, float v) { for (float& e : f.x) e = v; }
template <class Use, class T, class L, class P>
void load_matrix_sync(fragment<Use, 16, 16, 16, T, L>& f, const P* p, unsigned ldm) {
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j)
        f.x[i * 16 + j] = std::is_same_v<L, col_major> ? (float)p[j * ldm + i] : (float)p[i * ldm + j];
}
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float>& f, const float* p, unsigned ldm, layout_t l) {
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j)
        f.x[i * 16 + j] = l == mem_row_major ? p[i * ldm + j] : p[j * ldm + i];
}
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f, unsigned ldm, layout_t l) {
    emu::wbar().arrive_and_wait();  // all lanes have computed before anyone writes
    if (emu::lane() == 0)
        for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j)
            (l == mem_row_major ? p[i * ldm + j] : p[j * ldm + i]) = f.x[i * 16 + j];
    emu::wbar().arrive_and_wait();
}
template <class A, class B>
void mma_sync(fragment<accumulator, 16, 16, 16, float>& d, const A& a, const B& b,
              const fragment<accumulator, 16, 16, 16, float>& c) {
    float r[256];
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 16; ++j) {
        float s = c.x[i * 16 + j];
        for (int k = 0; k < 16; ++k) s += a.x[i * 16 + k] * b.x[k * 16 + j];
        r[i * 16 + j] = s;
    }
    std::memcpy(d.x, r, sizeof r);
}
}  // namespace nvcuda::wmma

// Replacements for the inline-asm helpers of the corpus (selected by name in the harness).
inline void emu_named_sync(int id, int count) { emu::cta->named[id].arrive(count, true); }
inline void emu_named_arrive(int id, int count) { emu::cta->named[id].arrive(count, false); }

inline uint32_t emu_pack(__half lo, __half hi) {
    uint16_t a, b; std::memcpy(&a, &lo, 2); std::memcpy(&b, &hi, 2); return a | (uint32_t)b << 16;
}
inline __half emu_unpack(uint32_t r, int hi) {
    uint16_t a = hi ? r >> 16 : r & 0xffff; __half h; std::memcpy(&h, &a, 2); return h;
}
// ldmatrix .x4: lanes 8m..8m+7 give row addresses of matrix m; lane t gets row t/4, cols 2(t%4), +1
inline void emu_ldmatrix_x4(uint32_t (&r)[4], const void* p, bool trans) {
    emu::slot(emu::lane())[0] = (uint64_t)(uintptr_t)p;
    emu::wbar().arrive_and_wait();
    const unsigned t = emu::lane();
    for (int m = 0; m < 4; ++m) {
        auto row = [&](int rr) { return (const __half*)(uintptr_t)emu::slot(8 * m + rr)[0]; };
        if (!trans) r[m] = emu_pack(row(t / 4)[2 * (t % 4)], row(t / 4)[2 * (t % 4) + 1]);
        else r[m] = emu_pack(row(2 * (t % 4))[t / 4], row(2 * (t % 4) + 1)[t / 4]);
    }
    emu::wbar().arrive_and_wait();
}
// mma.m16n8k16 row.col f32.f16.f16.f32 with the PTX ISA fragment layouts
inline void emu_mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    uint64_t* s = emu::slot(emu::lane());
    for (int i = 0; i < 4; ++i) s[i] = a[i];
    s[4] = b0; s[5] = b1;
    emu::wbar().arrive_and_wait();
    float A[16][16], B[16][8];
    for (int l = 0; l < 32; ++l) {
        const uint64_t* q = emu::slot(l);
        const int g = l / 4, tg = l % 4;
        for (int h = 0; h < 2; ++h) {
            A[g][2 * tg + h] = (float)emu_unpack((uint32_t)q[0], h);
            A[g + 8][2 * tg + h] = (float)emu_unpack((uint32_t)q[1], h);
            A[g][2 * tg + 8 + h] = (float)emu_unpack((uint32_t)q[2], h);
            A[g + 8][2 * tg + 8 + h] = (float)emu_unpack((uint32_t)q[3], h);
            B[2 * tg + h][g] = (float)emu_unpack((uint32_t)q[4], h);
            B[2 * tg + 8 + h][g] = (float)emu_unpack((uint32_t)q[5], h);
        }
    }
    emu::wbar().arrive_and_wait();
    const int g = emu::lane() / 4, tg = emu::lane() % 4;
    for (int e = 0; e < 4; ++e) {
        const int row = g + (e >= 2 ? 8 : 0), col = 2 * tg + (e % 2);
        float acc = d[e];
        for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
        d[e] = acc;
    }
}
inline void emu_cp_async16(void* smem, const void* gmem) { std::memcpy(smem, gmem, 16); }
