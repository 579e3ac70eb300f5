// Warpgroup MMA (semantics of engine<D, O>, declared in exec/engine.hpp): wgmma.fence,
// wgmma.mma_async, wgmma.commit_group and wgmma.wait_group (PTX ISA 8.0+, sm_90a), with the
// descriptor and fragment layouts of exec/wgmma_layout.hpp.
//
// How gpueq runs them:
//   - All four are .sync.aligned, executed by the four warps of a warpgroup; gpueq runs each as a
//     warp collective (collective.hpp) of the warp's 32 lanes. wgmma.mma_async splits exactly
//     into its warps: warp w of the group computes rows 16w..16w+15 of D from the same rows of A
//     (its registers, or read through A's descriptor) and all of B, so each warp computes its
//     slice when it arrives, and the k-th wgmma.mma_async of every warp of a group must be the
//     same instruction (checked as setmaxnreg is).
//   - Types: m64nNk16 .f16/.bf16, m64nNk8 .tf32, m64nNk32 .e4m3/.e5m2 (A and B may differ;
//     K-major only, no imm-trans operands; A in registers holds four fp8 bytes per .b32, which
//     must be concrete: a cell holds at most two symbolic values).
//   - Values: D = A B + (scale-d ? C : 0), with imm-scale-a/b = -1 negating A/B, computed over
//     the domain like mma (engine::product, products accumulated in k order as f32 fused
//     multiply-adds); an .f16 accumulator is read as halves and the f32 result converted to f16
//     (round to nearest) at the end: over the reals nothing is rounded.
//   - Asynchrony: the result is computed at issue from the operands' values then, and the
//     destination registers (and the registers of an A fragment, which the operation owns until
//     it completes) hold a marker (values.hpp, `in_flight`) until the wgmma.wait_group that
//     retires the group lands them. Any other instruction reading such a register is the error
//     (uninitialized-read class) naming the register and the wgmma.mma_async; a later
//     wgmma.mma_async of the same shape may accumulate into in-flight accumulators (the ISA
//     orders those in hardware) and reads their pending values. A register overwritten while in
//     flight is found at the retiring wait (the marker is gone): an error naming both.
//   - Shared-memory operands are read at issue, in the async proxy (PTX ISA, "Asynchronous
//     Warpgroup Level Matrix Multiply-Accumulate"; "Proxies"): observed as reads of 16-byte
//     chunks, with the wgmma.mma_async's line, by the async agent of the warp's first lane u0
//     (semantics/bulk_copy.hpp), which sees only what proxy fences made visible, as a TMA
//     store's source read does (race/async_proxy.hpp). So a generic write (st.shared) that
//     reaches the wgmma through a barrier but no fence.proxy.async is a race reported as a
//     missing proxy fence; a landed cp.async needs no fence (semantic choice, async_copy.hpp);
//     a TMA load's writes are the async proxy's own. The agent then registers an `async_done`
//     generation, which every lane of the warp acquires at the wgmma.wait_group that retires the
//     operation: a write that no lane's retiring wait orders after the read (a ring stage refilled
//     after a barrier that follows the issue but precedes the wait, or a thread's own store
//     between its issue and its wait) races with it. The first lane reads the chunks once more at
//     the retiring wait, as itself. And the retiring wait compares every operand element with the
//     value the issue read: an element stored again in between stops the run with an error
//     naming it (behind the race, which the verdict puts first).
//   - wgmma.fence: gpueq checks only the ISA's first rule, a fence before a warp's first
//     wgmma.mma_async; the rule about registers accessed between a fence and an mma_async is not
//     checked.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/wgmma_layout.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// The shape and types of one wgmma.mma_async: .m64nNkK.dtype.atype.btype.
template <value_domain D, observer O>
struct engine<D, O>::wgmma_shape {
  std::uint32_t n = 0, k = 0;
  vtype dtype = vtype::f32, ab = vtype::f16, b = vtype::f16;  // ab: A's type (and B's but for fp8); b: B's
  bool operator==(const wgmma_shape&) const = default;
  bool fp8() const { return ab == vtype::e4m3 || ab == vtype::e5m2; }
  // Bytes per A/B element: 4 tf32, 1 e4m3/e5m2, else 2.
  std::uint32_t element_bytes() const { return ab == vtype::tf32 ? 4 : fp8() ? 1 : 2; }
};

template <value_domain D, observer O>
struct engine<D, O>::wgmma_warp {
  struct chunk {  // a 16-byte piece of an operand in shared memory
    std::uint32_t region = 0;
    std::uint64_t offset = 0;
    bool operator<(const chunk& o) const { return region != o.region ? region < o.region : offset < o.offset; }
    bool operator==(const chunk&) const = default;
  };
  struct operand {  // an element read from shared memory: the stored values that held its bytes
    std::uint32_t region = 0;
    std::uint64_t offset = 0;
    std::array<std::uint32_t, 4> slots{};  // the store slots of its bytes (1, 2 or 4 of them)
    value v;                               // the first byte's value then
    std::vector<value> rest;               // the value of each later byte whose slot differs from the byte before it
  };
  struct issue {
    std::uint64_t id = 0;
    std::uint32_t pc = 0;
    std::vector<chunk> reads;
    std::vector<operand> operands;
    std::uint32_t done = 0;  // the async_done generation of the first lane's agent after the reads
  };
  struct owned {  // a register an in-flight wgmma.mma_async owns
    value v;          // what the retiring wait lands in it
    std::uint64_t id = 0;  // the last wgmma.mma_async that owns it
    std::uint32_t pc = 0;
    wgmma_shape shape;
    bool accumulator = true;
  };
  std::vector<issue> open;                // issued, not yet committed
  std::deque<std::vector<issue>> groups;  // committed and pending, oldest first
  std::uint64_t next_id = 1;
  bool fenced = false;
  std::vector<std::uint32_t> issued;  // the wgmma.mma_async instructions the warp issued, in order
  std::array<boost::unordered_flat_map<std::uint32_t, owned>, warp_size> lanes;
};

template <value_domain D, observer O>
inline auto engine<D, O>::wgmma_state(std::uint32_t w) -> wgmma_warp& {
  if (!wgmma_warps_[w]) wgmma_warps_[w] = std::make_shared<wgmma_warp>();
  return *wgmma_warps_[w];
}

template <value_domain D, observer O>
inline std::string engine<D, O>::wgmma_in_flight_message(std::uint32_t r, std::uint32_t pc) const {
  return "register " + register_name(r) + " belongs to the wgmma.mma_async at " + where(pc) +
         ", which is still in flight: it is read before the wgmma.wait_group that retires the operation";
}

template <value_domain D, observer O>
inline auto engine<D, O>::wgmma_shape_of(const xinstr& x, std::uint32_t u) -> wgmma_shape {
  wgmma_shape s;
  std::string shape;
  for (auto id : x.unknown_mods) {
    std::string_view m = p_.str(id);
    if (m.starts_with(".m64n") && shape.empty()) shape = std::string(m);
    else fail_at(error_kind::unsupported, u, "wgmma.mma_async modifier " + std::string(m));
  }
  // ".m64n<N>k<K>"
  auto kpos = shape.find('k');
  if (shape.empty() || kpos == std::string::npos)
    fail_at(error_kind::unsupported, u, "wgmma.mma_async without its .m64nNkK shape");
  auto num = [&](std::string_view t) {
    std::uint32_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || p != t.data() + t.size()) fail_at(error_kind::unsupported, u, "wgmma.mma_async shape " + shape);
    return v;
  };
  s.n = num(std::string_view(shape).substr(5, kpos - 5));
  s.k = num(std::string_view(shape).substr(kpos + 1));
  auto is_fp8 = [](vtype t) { return t == vtype::e4m3 || t == vtype::e5m2; };
  if (x.types.size() != 3 || (x.types[1] != x.types[2] && !(is_fp8(x.types[1]) && is_fp8(x.types[2]))))
    fail_at(error_kind::unsupported, u,
            "this wgmma.mma_async form (expected .dtype.atype.btype with atype = btype, or both fp8)");
  s.dtype = x.types[0];
  s.ab = x.types[1];
  s.b = x.types[2];
  const bool half = s.ab == vtype::f16 || s.ab == vtype::bf16;
  if (!(half && s.k == 16) && !(s.ab == vtype::tf32 && s.k == 8) && !(s.fp8() && s.k == 32))
    fail_at(error_kind::unsupported, u,
            "this wgmma.mma_async shape and type (gpueq models k16 .f16/.bf16, k8 .tf32 and k32 .e4m3/.e5m2)");
  if (s.dtype != vtype::f32 && !(s.dtype == vtype::f16 && (s.ab == vtype::f16 || s.fp8())))
    fail_at(error_kind::unsupported, u,
            "this wgmma.mma_async accumulator type (.f32, or .f16 with .f16 or fp8 inputs)");
  if (s.n < 8 || s.n > 256 || s.n % 8 != 0)
    fail_at(error_kind::barrier, u, "wgmma.mma_async n" + std::to_string(s.n) + ": N is a multiple of 8 in 8..256");
  return s;
}

// The warps of a warpgroup issue the same wgmma.mma_async instructions in the same order.
template <value_domain D, observer O>
inline void engine<D, O>::wgmma_aligned(const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front(), w = u0 / warp_size, g = w / 4;
  auto& mine = wgmma_state(w).issued;
  const std::size_t k = mine.size();
  for (std::uint32_t v = 4 * g; v < 4 * g + 4 && v < warps_; ++v) {
    if (v == w || !wgmma_warps_[v]) continue;
    const auto& theirs = wgmma_warps_[v]->issued;
    if (theirs.size() > k && theirs[k] != pc_[u0])
      fail_at(error_kind::barrier, u0,
              "warp " + std::to_string(w) + " issues the wgmma.mma_async at " + where(pc_[u0]) + " where warp " +
                  std::to_string(v) + " of warpgroup " + std::to_string(g) + " issued the one at " +
                  where(theirs[k]) + ": all warps of a warpgroup must execute the same wgmma.mma_async");
  }
  mine.push_back(pc_[u0]);
}

template <value_domain D, observer O>
inline void engine<D, O>::wgmma_fence(const std::vector<std::uint32_t>& members) {
  wgmma_state(members.front() / warp_size).fenced = true;
}

template <value_domain D, observer O>
inline void engine<D, O>::wgmma_mma_async(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front(), w = u0 / warp_size, row0 = 16 * (w % 4), pc = pc_[u0];
  if (members.size() != warp_size) fail(error_kind::barrier, u0, "wgmma.mma_async needs all 32 lanes", pc);
  const wgmma_shape s = wgmma_shape_of(x, u0);
  auto& ws = wgmma_state(w);
  if (!ws.fenced)
    fail_at(error_kind::barrier, u0,
            "wgmma.mma_async without a wgmma.fence before it: the warpgroup must execute wgmma.fence before its "
            "first wgmma.mma_async");
  wgmma_aligned(members);
  // tf32 and fp8 have no imm-trans operands: their shared-memory operands are K-major only.
  const bool tf32 = s.ab == vtype::tf32, fp8 = s.fp8(), no_trans = tf32 || fp8,
             a_regs = x.ops.size() > 1 && x.ops[1].k == xoperand::kind::vector;
  const std::size_t want = no_trans ? 6 : a_regs ? 7 : 8;
  if (x.ops.size() != want)
    fail_at(error_kind::unsupported, u0,
            "wgmma.mma_async with " + std::to_string(x.ops.size()) + " operands (this form has " + std::to_string(want) +
                ": d, a, b-desc, scale-d, imm-scale-a, imm-scale-b" + (no_trans ? "" : a_regs ? ", imm-trans-b" : ", imm-trans-a, imm-trans-b") + ")");
  auto immediate = [&](std::size_t operand, const char* what) -> std::int64_t {
    const xoperand& o = x.ops[operand];
    if (o.k != xoperand::kind::imm || o.imm_float)
      fail_at(error_kind::unsupported, u0, std::string("wgmma.mma_async's ") + what + " must be an integer constant");
    return static_cast<std::int64_t>(o.imm);
  };
  const std::int64_t scale_a = immediate(4, "imm-scale-a"), scale_b = immediate(5, "imm-scale-b");
  if ((scale_a != 1 && scale_a != -1) || (scale_b != 1 && scale_b != -1))
    fail_at(error_kind::barrier, u0, "wgmma.mma_async's imm-scale-a and imm-scale-b are 1 or -1");
  const bool trans_a = !no_trans && !a_regs && immediate(6, "imm-trans-a") != 0;
  const bool trans_b = !no_trans && immediate(a_regs ? 6 : 7, "imm-trans-b") != 0;
  const std::uint32_t e = s.element_bytes(), N = s.n, K = s.k;
  const rkind kab = *rkind_of(s.ab), kb = *rkind_of(s.b), kd = s.dtype == vtype::f16 ? rkind::f16 : rkind::f32;

  // Shared-memory operands: element (mn, k) through the descriptor, observed per 16-byte chunk.
  std::vector<typename wgmma_warp::chunk> chunks;
  std::vector<typename wgmma_warp::operand> operands;
  auto smem = [&](const wgmma::descriptor& d, bool mn_major, std::uint32_t mn, std::uint32_t k, rkind kind) -> real {
    std::uint64_t at = wgmma::element_address(d, mn_major, e, mn, k);
    place p = locate(u0, ptx::state_space::shared, address_value{at, 0}, e);
    if (p.r->space != memory_space::shared)
      fail_at(error_kind::out_of_bounds, u0, "a wgmma.mma_async descriptor addresses 0x" + hex(at) + ", outside shared memory");
    chunks.push_back({p.index, p.offset & ~std::uint64_t{15}});
    std::array<std::uint32_t, 4> slots{};
    for (std::uint32_t b = 0; b < e; ++b) slots[b] = p.r->slot(p.offset + b);
    real r = to_real(load_cell(u0, *p.r, p.offset, e), kind, u0);
    if (slots[0]) {
      typename wgmma_warp::operand o{p.index, p.offset, slots, p.r->value(slots[0]).value, {}};
      // A byte stored apart (st.u8 into the element) may later be stored again in place, keeping
      // its slot: its value is kept too, to be compared at the retiring wait.
      for (std::uint32_t b = 1; b < e; ++b)
        if (slots[b] != slots[b - 1] && slots[b]) o.rest.push_back(p.r->value(slots[b]).value);
      operands.push_back(std::move(o));
    }
    return r;
  };
  auto descriptor_of = [&](std::size_t operand) { return wgmma::decode(to_bits(read(u0, x.ops[operand]), u0)); };
  auto& lanes = ws.lanes;
  // A register of lane `u`: its pending value when an in-flight wgmma.mma_async owns it.
  auto operand_register = [&](std::uint32_t u, const xoperand& o) -> value {
    if (o.k == xoperand::kind::reg && reg(u, o.reg).is_in_flight())
      if (auto it = lanes[u % warp_size].find(o.reg); it != lanes[u % warp_size].end()) return it->second.v;
    return read(u, o);
  };
  auto half_of = [&](std::uint32_t u, const value& v, std::uint32_t h, rkind k) -> real {
    if (v.t == value::tag::packed) return h ? v.r2 : v.r;
    std::uint64_t b = to_bits(v, u);
    return guarded([&] { return d_.from_float(h ? (b >> 16) & 0xffff : b & 0xffff, k); }, u);
  };
  // Byte q (0..3) of a 32-bit A register holding four fp8 values: concrete bits, or (a register
  // that holds two fp8 pairs cannot be symbolic: a cell holds at most two values) a pair's byte.
  auto quarter_of = [&](std::uint32_t u, const value& v, std::uint32_t q, rkind k) -> real {
    if (v.t == value::tag::bits || (v.t == value::tag::real && !is_symbolic(v))) {
      std::uint64_t b = to_bits(v, u);
      return guarded([&] { return d_.from_float((b >> (8 * q)) & 0xff, k); }, u);
    }
    fail_at(error_kind::not_structured, u,
            "an fp8 A fragment register of wgmma.mma_async holds symbolic data: gpueq keeps at most two symbolic "
            "values per register, not the four fp8 values of a .b32 (load A through a shared-memory descriptor)");
  };

  std::vector<real> A(std::size_t{16} * K), B(std::size_t{K} * N), C(std::size_t{16} * N);
  if (a_regs) {
    auto ra = regs_of(x.ops[1]);
    if (ra.size() != 4) fail_at(error_kind::unsupported, u0, "wgmma.mma_async's A fragment is four registers");
    for (auto u : members)
      for (std::uint32_t i = 0; i < (tf32 ? 4u : fp8 ? 16u : 8u); ++i) {
        if (fp8) {  // four fp8 values per register, element i in byte i % 4 of register i / 4
          auto at = wgmma::a_element_8bit(u % 128, i);
          A[(at.row - row0) * K + at.col] = quarter_of(u, operand_register(u, *ra[i / 4]), i % 4, kab);
          continue;
        }
        auto at = wgmma::a_element(tf32, u % 128, i);
        value v = operand_register(u, *ra[tf32 ? i : i / 2]);
        A[(at.row - row0) * K + at.col] = tf32 ? to_real(v, rkind::f32, u) : half_of(u, v, i % 2, kab);
      }
  } else {
    const auto da = descriptor_of(1);
    for (std::uint32_t r = 0; r < 16; ++r)
      for (std::uint32_t k = 0; k < K; ++k) A[r * K + k] = smem(da, trans_a, row0 + r, k, kab);
  }
  const auto db = descriptor_of(2);
  for (std::uint32_t k = 0; k < K; ++k)
    for (std::uint32_t n = 0; n < N; ++n) B[k * N + n] = smem(db, trans_b, n, k, kb);
  auto negate = [&](std::vector<real>& m, rkind kind) {
    for (auto& v : m) {
      real xs[1] = {v};
      v = guarded([&] { return d_.arith(aop::neg, xs, kind, float_mode{}); }, u0);
    }
  };
  if (scale_a < 0) negate(A, kab);
  if (scale_b < 0) negate(B, kb);

  // C: every lane's accumulators (the pending values of in-flight ones of the same shape), or 0.
  auto rd = regs_of(x.ops[0]);
  const std::uint32_t nd = s.dtype == vtype::f16 ? N / 4 : N / 2;
  if (rd.size() != nd)
    fail_at(error_kind::unsupported, u0,
            "wgmma.mma_async .m64n" + std::to_string(N) + " ." + std::string(s.dtype == vtype::f16 ? "f16" : "f32") +
                " accumulates in " + std::to_string(nd) + " registers, not " + std::to_string(rd.size()));
  const real zero = guarded([&] { return d_.from_float(0, rkind::f32); }, u0);
  for (auto u : members) {
    const bool scale_d = truth(u, read(u, x.ops[3]));
    auto& mine = lanes[u % warp_size];
    for (std::uint32_t i = 0; i < N / 2; ++i) {
      auto at = wgmma::accumulator_element(u % 128, i);
      real& c = C[(at.row - row0) * N + at.col];
      if (!scale_d) {
        c = zero;
        continue;
      }
      const xoperand& o = *rd[s.dtype == vtype::f16 ? i / 2 : i];
      if (o.k == xoperand::kind::reg && reg(u, o.reg).is_in_flight()) {
        auto it = mine.find(o.reg);
        if (it == mine.end() || !it->second.accumulator || !(it->second.shape == s))
          fail_at(error_kind::uninitialized, u,
                  wgmma_in_flight_message(o.reg, reg(u, o.reg).provenance - 1) +
                      " (only a wgmma.mma_async of the same shape may accumulate into it before then)");
      }
      value v = operand_register(u, o);
      c = s.dtype == vtype::f16 ? half_of(u, v, i % 2, rkind::f16) : to_real(v, rkind::f32, u);
    }
  }
  const std::vector<real> Dm = product(A, B, C, 16, N, K, u0);

  // The reads at issue, by the first lane's async agent under the fenced view of its thread's
  // clock; kept for the retiring wait.
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  std::uint32_t done = 0;
  if (!chunks.empty()) {
    async_issue(u0, pc, true);
    for (const auto& c : chunks)
      observe(n_ + u0, place{&regions_[c.region], c.region, c.offset}, 16, access_kind::read, pc);
    done = async_done(u0, pc);
  }
  const std::uint64_t id = ws.next_id++;
  ws.open.push_back({id, pc, std::move(chunks), std::move(operands), done});

  // The destinations (and A's registers) are the operation's until its group retires.
  for (auto u : members) {
    auto& mine = lanes[u % warp_size];
    auto own = [&](const xoperand& o, value v, bool accumulator) {
      if (o.k != xoperand::kind::reg) return;
      auto [it, fresh] = mine.try_emplace(o.reg);
      if (fresh || accumulator) it->second.v = std::move(v);  // an A register keeps its first saved value
      it->second.id = id;
      it->second.pc = pc;
      it->second.shape = s;
      it->second.accumulator = accumulator;
      reg(u, o.reg) = value::in_flight_of(pc);
    };
    for (std::uint32_t r = 0; r < nd; ++r) {
      value v;
      if (s.dtype == vtype::f16) {
        real lo[1], hi[1];
        for (std::uint32_t h = 0; h < 2; ++h) {
          auto at = wgmma::accumulator_element(u % 128, 2 * r + h);
          real f = Dm[(at.row - row0) * N + at.col];
          (h ? hi : lo)[0] = guarded([&] { return d_.convert(f, rkind::f32, kd, float_mode{}); }, u);
        }
        v = value::of_packed(lo[0], hi[0], rkind::f16);
      } else {
        auto at = wgmma::accumulator_element(u % 128, r);
        v = value::of_real(Dm[(at.row - row0) * N + at.col], rkind::f32);
      }
      own(*rd[r], std::move(v), true);
    }
    if (a_regs)
      for (const xoperand* o : regs_of(x.ops[1])) {
        if (o->k != xoperand::kind::reg) continue;
        auto it = mine.find(o->reg);
        if (it != mine.end() && it->second.accumulator)
          fail_at(error_kind::barrier, u,
                  "register " + register_name(o->reg) + " is the A operand of a wgmma.mma_async while the one at " +
                      where(it->second.pc) + " accumulates into it");
        value keep = it != mine.end() ? it->second.v : reg(u, o->reg);
        own(*o, std::move(keep), false);
      }
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::wgmma_commit(const std::vector<std::uint32_t>& members) {
  auto& ws = wgmma_state(members.front() / warp_size);
  ws.groups.push_back(std::move(ws.open));  // an empty group when nothing was issued (the ISA's)
  ws.open.clear();
}

// wgmma.wait_group N: every committed group but the newest N completes; its shared-memory reads
// are observed again here and its registers land.
template <value_domain D, observer O>
inline void engine<D, O>::wgmma_wait(const xinstr& x, const std::vector<std::uint32_t>& members) {
  const std::uint32_t u0 = members.front();
  const xoperand& n = x.ops[0];
  if (n.k != xoperand::kind::imm || n.imm_float)
    fail_at(error_kind::unsupported, u0, "wgmma.wait_group's operand must be an integer constant");
  if (members.size() != warp_size) fail(error_kind::barrier, u0, "wgmma.wait_group needs all 32 lanes", pc_[u0]);
  auto& ws = wgmma_state(u0 / warp_size);
  // Every lane acquires the agent's reads of the operations retired here: the newest one's
  // async_done generation, which follows all the agent did before it.
  std::uint32_t done = 0;
  for (std::size_t g = 0; g + n.imm < ws.groups.size(); ++g)
    for (const auto& is : ws.groups[g]) done = std::max(done, is.done);
  if (done) collective_acquires_ = {barrier_key{barrier_kind::async_done, u0}, done};
  while (ws.groups.size() > n.imm) {
    std::vector<typename wgmma_warp::issue> group = std::move(ws.groups.front());
    ws.groups.pop_front();
    for (const auto& is : group) {
      for (const auto& c : is.reads)
        observe(u0, place{&regions_[c.region], c.region, c.offset}, 16, access_kind::read, is.pc);
      // The operation reads its operands until now: an element stored again since the issue
      // (another stored value over its bytes, or a different value in the same place) was
      // overwritten under it, by any thread, ordered or not (an unordered write is also the race
      // just observed, which the verdict puts first). Stored values, not loads, are compared: a
      // half of a symbolic pair cannot be reloaded once its other half is overwritten.
      const std::uint32_t e = wgmma_shape_of(p_.code[is.pc], u0).element_bytes();
      for (const auto& o : is.operands) {
        region<real>& r = regions_[o.region];
        bool same = true;  // every byte still in the stored value it was in (a narrower store makes a new one)
        for (std::uint32_t b = 0; b < e; ++b) same = same && r.slot(o.offset + b) == o.slots[b];
        // A store to the very same place reuses the slot: the values are compared too, one per
        // distinct slot among the element's bytes.
        auto unchanged = [&](std::uint32_t slot, const value& then) {
          const value& now = r.value(slot).value;
          return now.t == then.t && now.k == then.k &&
                 (now.t == value::tag::bits     ? now.bits == then.bits
                  : now.t == value::tag::real   ? d_.same(now.r, then.r)
                  : now.t == value::tag::packed ? d_.same(now.r, then.r) && d_.same(now.r2, then.r2)
                                                : false);
        };
        if (same) same = unchanged(o.slots[0], o.v);
        for (std::uint32_t b = 1, i = 0; same && b < e; ++b)
          if (o.slots[b] != o.slots[b - 1] && o.slots[b]) same = unchanged(o.slots[b], o.rest[i++]);
        if (!same)
          fail_at(error_kind::barrier, u0,
                  "shared " +
                      (r.byte_indexed ? r.name + "[byte " + std::to_string(o.offset) + "]"
                                      : r.name + "[" + std::to_string(o.offset / r.element_bytes) + "] (byte " +
                                            std::to_string(o.offset) + ")") +
                      ", an operand of the wgmma.mma_async at " + where(is.pc) +
                      ", is overwritten before this wgmma.wait_group retires the operation (which reads it until then)");
      }
      for (auto u : members) {
        auto& mine = ws.lanes[u % warp_size];
        std::vector<std::uint32_t> landed;
        for (auto& [name, owned] : mine)
          if (owned.id == is.id) landed.push_back(name);
        std::sort(landed.begin(), landed.end());  // the first overwritten one in register order
        for (std::uint32_t rn : landed) {
          auto it = mine.find(rn);
          value& r = reg(u, it->first);
          if (!r.is_in_flight() || r.provenance != it->second.pc + 1)
            fail_at(error_kind::barrier, u,
                    "register " + register_name(it->first) + ", " +
                        (it->second.accumulator ? "an accumulator" : "an A operand") + " of the wgmma.mma_async at " +
                        where(it->second.pc) +
                        ", is written while the operation is in flight (before this wgmma.wait_group retires it)");
          r = std::move(it->second.v);
          mine.erase(it);
        }
      }
    }
  }
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
