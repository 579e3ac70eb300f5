// A small FlashAttention-3-style attention forward (issue 20 corpus): O = softmax(c' Q K^T) V for
// one head, Q (64 x 64), K and V (128 x 64) row-major halves, O (64 x 64) float, with the softmax
// in base 2 (c = scale_log2 = scale * log2 e, a kernel argument as in FlashAttention and Triton).
//
// attention_naive: 64 threads, one query row each: the scaled scores' maximum m (started at
//   -INFINITY), then p_j = exp2f(c s_j - m), l = sum p_j, O = (sum p_j V_j) / l.
// attention_fa3: 256 threads, two warpgroups, 40 KiB of dynamic shared memory: Q (64 x 64) and a
//   two-stage ring of K and V tiles (64 keys x 64 halves each), every tile 8 KiB at a 1024-byte
//   boundary under the 128-byte TMA swizzle. mbarriers: full_q (count 1), full_k[s] and full_v[s]
//   (count 1, plus the TMA bytes) and empty[s] (count 128).
//   Warpgroup 0 is the producer (setmaxnreg.dec 40); warp 0 elects one lane (elect.sync) that
//   loads Q once, then for each key tile j waits until stage j % 2 is empty and loads K_j and V_j
//   (mbarrier.arrive.expect_tx + cp.async.bulk.tensor, complete_tx on full_k/full_v).
//   Warpgroup 1 is the consumer (setmaxnreg.inc 232). Per key tile: wait on full_k, S = Q K_j^T
//   with four wgmma.mma_async.m64n64k16.f32.f16.f16 (both operands K-major 128B-swizzled
//   descriptors), commit, wait_group 0; online softmax on the accumulator fragment (each thread
//   holds 16 scores of rows g and g + 8, g = lane / 4; the row max over the thread's scores, then
//   shfl.xor 1 and 2 across the row's four lanes; m_new = max(m_old, ...), alpha =
//   exp2f((m_old - m_new) c), p = exp2f(s c - m_new c), l = l alpha + sum p, O *= alpha); then
//   wait on full_v and O += P V_j with four wgmma.mma_async whose A operand is P in registers
//   (the S accumulators of one k16 slice packed to f16x2: the accumulator fragment of m64nNk16 is
//   the A fragment of the next MMA), B = V_j N-major (imm-trans-b 1), commit, wait_group 0, and
//   each consumer thread arrives on empty[s]. Finally l is summed across the row's four lanes and
//   O / l stored.
// attention_fa3_pingpong: 128 queries, 384 threads: the producer warpgroup (setmaxnreg.dec 24)
//   loads both 64-row halves of Q and the K/V ring (empty[s] counts 256 arrivals); two consumer
//   warpgroups (setmaxnreg.inc 240), each owning 64 query rows, take turns issuing S = Q K^T on
//   named barriers 2 and 3 (bar.sync on one's own, bar.arrive on the other's, 256 threads), as
//   FlashAttention-3's warp scheduler barriers do. Against attention_naive with 128 threads.
// attention_fa3_pingpong_no_first_turn (bug): consumer 1 never gives consumer 0 the first turn
//   (no initial bar.arrive 2): consumer 0 waits on barrier 2, consumer 1 on barrier 3.
// attention_fa3_overlap: FlashAttention-3's intra-warpgroup overlap with one consumer warpgroup:
//   S_j = Q K_j^T and O += P_{j-1} V_{j-1} are committed as two wgmma groups in flight together;
//   wgmma.wait_group 1 lands S_j, its softmax runs while the P V MMAs still run, wgmma.wait_group 0
//   lands O, which is then rescaled, and stage j - 1 is released.
// attention_fa3_overlap_early_rescale (bug): O is rescaled before the wgmma.wait_group 0 that lands
//   the P V MMAs writing it: a read of in-flight accumulators.
// attention_fa3_no_rescale (bug): O is not multiplied by alpha when the running maximum changes.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

constexpr int NQ = 64, NKV = 128, D = 64;
static_assert(NQ == 64, "each consumer warpgroup covers 64 query rows");
constexpr int BKV = 64;             // keys per tile
constexpr int NT = NKV / BKV;       // 2 key tiles
constexpr int STAGES = 2;
constexpr int TILE_BYTES = 64 * 64 * 2;
constexpr int THREADS = 256;

extern "C" __global__ void attention_naive(const __half* __restrict__ Q, const __half* __restrict__ K,
                                           const __half* __restrict__ V, float* __restrict__ O,
                                           float scale_log2) {
  const int i = threadIdx.x;
  float m = -INFINITY;
  for (int j = 0; j < NKV; ++j) {
    float s = 0.0f;
    for (int d = 0; d < D; ++d) s += __half2float(Q[i * D + d]) * __half2float(K[j * D + d]);
    m = fmaxf(m, s * scale_log2);
  }
  float l = 0.0f, o[D];
  for (int d = 0; d < D; ++d) o[d] = 0.0f;
  for (int j = 0; j < NKV; ++j) {
    float s = 0.0f;
    for (int d = 0; d < D; ++d) s += __half2float(Q[i * D + d]) * __half2float(K[j * D + d]);
    const float p = exp2f(s * scale_log2 - m);
    l += p;
    for (int d = 0; d < D; ++d) o[d] += p * __half2float(V[j * D + d]);
  }
  for (int d = 0; d < D; ++d) O[i * D + d] = o[d] / l;
}

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// --- mbarrier, TMA, elect --------------------------------------------------------------------
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

// --- wgmma -----------------------------------------------------------------------------------
__device__ __forceinline__ uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo, uint64_t swizzle) {
  auto enc = [](uint32_t x) { return static_cast<uint64_t>((x & 0x3FFFF) >> 4); };
  return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | swizzle << 62;
}
struct accumulators {
  float d[32];
};
#define WG_D32                                                                                           \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define WG_D32_LIST                                                                     \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "             \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
// S (+)= Q K^T for one k16 step: A and B both K-major descriptors (imm-trans-a 0, imm-trans-b 0).
__device__ __forceinline__ void mma_ss(accumulators& a, uint64_t da, uint64_t db, int scale_d) {
  float* d = a.d;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WG_D32_LIST
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : WG_D32
      : "l"(da), "l"(db), "r"(scale_d));
}
// O += P V for one k16 step: A from four f16x2 registers, B an N-major descriptor (imm-trans-b 1).
__device__ __forceinline__ void mma_rs(accumulators& a, const uint32_t (&pa)[4], uint64_t db) {
  float* d = a.d;
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WG_D32_LIST
      "{%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
      : WG_D32
      : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "l"(db));
}
__device__ __forceinline__ void pin(accumulators& a) {
#pragma unroll
  for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(a.d[i])::"memory");
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait1() { asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&h);
}

// NC consumer warpgroups, each owning 64 query rows (NC = 2: FlashAttention-3's ping-pong).
template <bool NoRescale, int NC = 1, bool NoFirstTurn = false>
__device__ __forceinline__ void attention_fa3(const CUtensorMap* q_map, const CUtensorMap* k_map,
                                              const CUtensorMap* v_map, float* O, float scale_log2) {
  extern __shared__ __align__(1024) uint8_t buf[];  // NC Q tiles, then STAGES x (K tile, V tile)
  __shared__ __align__(8) uint64_t full_q, full_k[STAGES], full_v[STAGES], empty[STAGES];
  uint8_t* sq = buf;
  auto sk = [&](int s) { return buf + TILE_BYTES * (NC + 2 * s); };
  auto sv = [&](int s) { return buf + TILE_BYTES * (NC + 1 + 2 * s); };
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(&full_q, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full_k[s], 1);
      mbar_init(&full_v[s], 1);
      mbar_init(&empty[s], 128 * NC);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 128) {  // producer warpgroup
    if constexpr (NC == 1)
      asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    else
      asm volatile("setmaxnreg.dec.sync.aligned.u32 24;" ::: "memory");
    if (t < 32 && elect_one()) {
      mbar_arrive_expect_tx(&full_q, NC * TILE_BYTES);
      for (int c = 0; c < NC; ++c) tma_load_2d(sq + c * TILE_BYTES, q_map, 0, 64 * c, &full_q);
      for (int j = 0; j < NT; ++j) {
        const int s = j % STAGES;
        mbar_wait(&empty[s], ((j / STAGES) & 1) ^ 1);
        mbar_arrive_expect_tx(&full_k[s], TILE_BYTES);
        tma_load_2d(sk(s), k_map, 0, j * BKV, &full_k[s]);
        mbar_arrive_expect_tx(&full_v[s], TILE_BYTES);
        tma_load_2d(sv(s), v_map, 0, j * BKV, &full_v[s]);
      }
    }
    return;
  }
  // consumer warpgroup c
  if constexpr (NC == 1)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  else
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;" ::: "memory");
  const int c = t / 128 - 1, ct = t - 128 * (c + 1), w = ct / 32, lane = ct % 32;
  // Ping-pong (NC = 2): named barriers 2 and 3 (256 threads: both consumer warpgroups) hand the
  // turn to issue S = Q K^T back and forth; consumer 1 gives consumer 0 the first turn.
  if (NC == 2 && c == 1 && !NoFirstTurn) asm volatile("bar.arrive 2, 256;" ::: "memory");
  accumulators S, Oacc;
#pragma unroll
  for (int i = 0; i < 32; ++i) Oacc.d[i] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g and g + 8
  mbar_wait(&full_q, 0);
  const uint32_t q0 = smem(sq + c * TILE_BYTES);
#pragma unroll 1
  for (int j = 0; j < NT; ++j) {
    const int s = j % STAGES;
    const uint32_t parity = (j / STAGES) & 1;
    mbar_wait(&full_k[s], parity);
    const uint32_t k0 = smem(sk(s)), v0 = smem(sv(s));
    if (NC == 2) asm volatile("bar.sync %0, 256;" ::"r"(2 + c) : "memory");  // my turn
    pin(S);
    wg_fence();
#pragma unroll
    for (int k = 0; k < D / 16; ++k)
      mma_ss(S, descriptor(q0 + 32 * k, 16, 1024, 1), descriptor(k0 + 32 * k, 16, 1024, 1), k > 0);
    wg_commit();
    // the other's turn (consumer 1's last turn is not handed back: consumer 0 has no next tile)
    if (NC == 2 && !(c == 1 && j == NT - 1)) asm volatile("bar.arrive %0, 256;" ::"r"(3 - c) : "memory");
    wg_wait0();
    pin(S);
    // Online softmax on rows g (accumulators i with (i / 2) % 2 == 0) and g + 8 (the others).
    float alpha[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = m[h];
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if ((i / 2) % 2 == h) mx = fmaxf(mx, S.d[i]);
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      alpha[h] = exp2f((m[h] - mx) * scale_log2);
      m[h] = mx;
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < 32; ++i)
        if ((i / 2) % 2 == h) {
          S.d[i] = exp2f(S.d[i] * scale_log2 - mx * scale_log2);
          sum += S.d[i];
        }
      l[h] = l[h] * alpha[h] + sum;
    }
    if (!NoRescale) {
#pragma unroll
      for (int i = 0; i < 32; ++i) Oacc.d[i] *= alpha[(i / 2) % 2];
    }
    // P (f16) as the A operand: k16 slice kk of P is S.d[8 kk .. 8 kk + 7].
    uint32_t pa[BKV / 16][4];
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) pa[kk][r] = pack_half2(S.d[8 * kk + 2 * r], S.d[8 * kk + 2 * r + 1]);
    mbar_wait(&full_v[s], parity);
    pin(Oacc);
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk) mma_rs(Oacc, pa[kk], descriptor(v0 + 2048 * kk, 16, 1024, 1));
    wg_commit();
    wg_wait0();
    pin(Oacc);
    mbar_arrive(&empty[s]);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const int r = 64 * c + 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    O[r * D + col] = Oacc.d[i] / l[(i / 2) % 2];
  }
}

// Online softmax of one score tile (rows g and g + 8 of the thread): updates m and l, returns the
// rescale factors of O and leaves P in S.
__device__ __forceinline__ void softmax_tile(accumulators& S, float (&m)[2], float (&l)[2], float (&alpha)[2],
                                             float scale_log2) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float mx = m[h];
#pragma unroll
    for (int i = 0; i < 32; ++i)
      if ((i / 2) % 2 == h) mx = fmaxf(mx, S.d[i]);
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    alpha[h] = exp2f((m[h] - mx) * scale_log2);
    m[h] = mx;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; ++i)
      if ((i / 2) % 2 == h) {
        S.d[i] = exp2f(S.d[i] * scale_log2 - mx * scale_log2);
        sum += S.d[i];
      }
    l[h] = l[h] * alpha[h] + sum;
  }
}

// FlashAttention-3's intra-warpgroup overlap, one consumer warpgroup: the MMAs of S_j = Q K_j^T and
// of O += P_{j-1} V_{j-1} are in flight together; wgmma.wait_group 1 retires S_j (groups retire in
// commit order), the softmax of S_j runs while the P V MMAs still run, wgmma.wait_group 0 retires
// them, and only then is O rescaled and stage j - 1 released.
template <bool RescaleEarly>
__device__ __forceinline__ void fa3_overlap_body(const CUtensorMap* q_map, const CUtensorMap* k_map,
                                                      const CUtensorMap* v_map, float* O, float scale_log2) {
  extern __shared__ __align__(1024) uint8_t buf[];  // Q, then STAGES x (K tile, V tile)
  __shared__ __align__(8) uint64_t full_q, full_k[STAGES], full_v[STAGES], empty[STAGES];
  uint8_t* sq = buf;
  auto sk = [&](int s) { return buf + TILE_BYTES * (1 + 2 * s); };
  auto sv = [&](int s) { return buf + TILE_BYTES * (2 + 2 * s); };
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(&full_q, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full_k[s], 1);
      mbar_init(&full_v[s], 1);
      mbar_init(&empty[s], 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t < 128) {  // producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    if (t < 32 && elect_one()) {
      mbar_arrive_expect_tx(&full_q, TILE_BYTES);
      tma_load_2d(sq, q_map, 0, 0, &full_q);
      for (int j = 0; j < NT; ++j) {
        const int s = j % STAGES;
        mbar_wait(&empty[s], ((j / STAGES) & 1) ^ 1);
        mbar_arrive_expect_tx(&full_k[s], TILE_BYTES);
        tma_load_2d(sk(s), k_map, 0, j * BKV, &full_k[s]);
        mbar_arrive_expect_tx(&full_v[s], TILE_BYTES);
        tma_load_2d(sv(s), v_map, 0, j * BKV, &full_v[s]);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
  const int ct = t - 128, w = ct / 32, lane = ct % 32;
  accumulators S, Oacc;
#pragma unroll
  for (int i = 0; i < 32; ++i) Oacc.d[i] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];
  uint32_t pa[BKV / 16][4];
  auto issue_s = [&](int s) {
    const uint32_t q0 = smem(sq), k0 = smem(sk(s));
#pragma unroll
    for (int k = 0; k < D / 16; ++k)
      mma_ss(S, descriptor(q0 + 32 * k, 16, 1024, 1), descriptor(k0 + 32 * k, 16, 1024, 1), k > 0);
    wg_commit();
  };
  auto issue_pv = [&](int s) {
    const uint32_t v0 = smem(sv(s));
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk) mma_rs(Oacc, pa[kk], descriptor(v0 + 2048 * kk, 16, 1024, 1));
    wg_commit();
  };
  auto pack_p = [&] {
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r) pa[kk][r] = pack_half2(S.d[8 * kk + 2 * r], S.d[8 * kk + 2 * r + 1]);
  };
  mbar_wait(&full_q, 0);
  mbar_wait(&full_k[0], 0);
  pin(S);
  wg_fence();
  issue_s(0);
  wg_wait0();
  pin(S);
  softmax_tile(S, m, l, alpha, scale_log2);  // O is still 0: no rescale
  pack_p();
#pragma unroll 1
  for (int j = 1; j < NT; ++j) {
    const int s = j % STAGES, sp = (j - 1) % STAGES;
    mbar_wait(&full_k[s], (j / STAGES) & 1);
    mbar_wait(&full_v[sp], ((j - 1) / STAGES) & 1);
    pin(S);
    pin(Oacc);
    wg_fence();
    issue_s(s);    // group 1: S_j
    issue_pv(sp);  // group 2: O += P_{j-1} V_{j-1}
    wg_wait1();    // S_j has landed; the P V MMAs may still run
    pin(S);
    softmax_tile(S, m, l, alpha, scale_log2);
    if (RescaleEarly) {  // the bug: O is still being written by the P V MMAs
      pin(Oacc);
#pragma unroll
      for (int i = 0; i < 32; ++i) Oacc.d[i] *= alpha[(i / 2) % 2];
    }
    wg_wait0();    // O has landed
    pin(Oacc);
    mbar_arrive(&empty[sp]);
    if (!RescaleEarly) {
#pragma unroll
      for (int i = 0; i < 32; ++i) Oacc.d[i] *= alpha[(i / 2) % 2];
    }
    pack_p();
  }
  mbar_wait(&full_v[(NT - 1) % STAGES], ((NT - 1) / STAGES) & 1);
  pin(Oacc);
  wg_fence();
  issue_pv((NT - 1) % STAGES);
  wg_wait0();
  pin(Oacc);
  mbar_arrive(&empty[(NT - 1) % STAGES]);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const int r = 16 * w + lane / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    O[r * D + col] = Oacc.d[i] / l[(i / 2) % 2];
  }
}

#define FA3_ENTRY(name, ...)                                                                                  \
  extern "C" __global__ void __launch_bounds__(THREADS, 1)                                                   \
      name(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,              \
           const __grid_constant__ CUtensorMap v_map, float* O, float scale_log2) {                           \
    attention_fa3<__VA_ARGS__>(&q_map, &k_map, &v_map, O, scale_log2);                                        \
  }
FA3_ENTRY(attention_fa3, false)
FA3_ENTRY(attention_fa3_no_rescale, true)
extern "C" __global__ void __launch_bounds__(3 * 128, 1)
    attention_fa3_pingpong(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                           const __grid_constant__ CUtensorMap v_map, float* O, float scale_log2) {
  attention_fa3<false, 2>(&q_map, &k_map, &v_map, O, scale_log2);
}
extern "C" __global__ void __launch_bounds__(3 * 128, 1)
    attention_fa3_pingpong_no_first_turn(const __grid_constant__ CUtensorMap q_map,
                                         const __grid_constant__ CUtensorMap k_map,
                                         const __grid_constant__ CUtensorMap v_map, float* O, float scale_log2) {
  attention_fa3<false, 2, true>(&q_map, &k_map, &v_map, O, scale_log2);
}
extern "C" __global__ void __launch_bounds__(THREADS, 1)
    attention_fa3_overlap(const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                          const __grid_constant__ CUtensorMap v_map, float* O, float scale_log2) {
  fa3_overlap_body<false>(&q_map, &k_map, &v_map, O, scale_log2);
}
extern "C" __global__ void __launch_bounds__(THREADS, 1)
    attention_fa3_overlap_early_rescale(const __grid_constant__ CUtensorMap q_map,
                                        const __grid_constant__ CUtensorMap k_map,
                                        const __grid_constant__ CUtensorMap v_map, float* O, float scale_log2) {
  fa3_overlap_body<true>(&q_map, &k_map, &v_map, O, scale_log2);
}
