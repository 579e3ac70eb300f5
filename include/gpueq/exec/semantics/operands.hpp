// Registers and operands (not an instruction family: what every family reads and writes through;
// engine<D, O>, declared in exec/engine.hpp): special registers, symbol addresses, reading an
// operand (with the undefined-value rules), writing a destination, a predicate's truth, and a
// cell as a domain value (to_real) or as bits (to_bits).
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

template <value_domain D, observer O>
inline std::uint64_t engine<D, O>::special(std::uint32_t t, special_reg s) const {
  const std::uint32_t u = clustered_ ? t % cta_threads_ : t;  // the thread in its CTA
  std::uint32_t x = u % l_.block[0], y = (u / l_.block[0]) % l_.block[1], z = u / (l_.block[0] * l_.block[1]);
  std::uint32_t lane = t % warp_size;
  switch (s) {
    case special_reg::tid_x: return x;
    case special_reg::tid_y: return y;
    case special_reg::tid_z: return z;
    case special_reg::ntid_x: return l_.block[0];
    case special_reg::ntid_y: return l_.block[1];
    case special_reg::ntid_z: return l_.block[2];
    case special_reg::ctaid_x: return l_.cta[0] + (clustered_ ? cluster_special(t, special_reg::cluster_ctaid_x) : 0);
    case special_reg::ctaid_y: return l_.cta[1] + (clustered_ ? cluster_special(t, special_reg::cluster_ctaid_y) : 0);
    case special_reg::ctaid_z: return l_.cta[2] + (clustered_ ? cluster_special(t, special_reg::cluster_ctaid_z) : 0);
    case special_reg::nctaid_x: return l_.grid[0];
    case special_reg::nctaid_y: return l_.grid[1];
    case special_reg::nctaid_z: return l_.grid[2];
    case special_reg::laneid: return lane;
    case special_reg::warpid: return u / warp_size;
    case special_reg::nwarpid: return clustered_ ? cta_threads_ / warp_size : warps_;
    case special_reg::lanemask_eq: return std::uint64_t{1} << lane;
    case special_reg::lanemask_lt: return (std::uint64_t{1} << lane) - 1;
    case special_reg::lanemask_le: return (std::uint64_t{2} << lane) - 1;
    case special_reg::lanemask_gt: return ~((std::uint64_t{2} << lane) - 1) & 0xffffffffu;
    case special_reg::lanemask_ge: return ~((std::uint64_t{1} << lane) - 1) & 0xffffffffu;
    case special_reg::dynamic_smem_size: return l_.dynamic_shared_bytes;
    case special_reg::total_smem_size: return shared_bytes_;
    // Time is the run's step count (monotone, as both clocks are on a GPU).
    case special_reg::clock: case special_reg::clock64: case special_reg::globaltimer: return stats_.steps;
    case special_reg::clock_hi: case special_reg::globaltimer_hi: return stats_.steps >> 32;
    case special_reg::globaltimer_lo: return stats_.steps & 0xffffffffu;
    default: return cluster_special(t, s);  // the cluster's; %smid, %nsmid, %gridid read as 0
  }
}

template <value_domain D, observer O>
inline std::uint64_t engine<D, O>::symbol_address(std::uint32_t t, std::uint32_t sym, std::uint64_t offset) {
  auto it = symbols_.find(sym);
  if (it == symbols_.end()) fail_at(error_kind::unsupported, t, "unknown symbol '" + std::string(p_.str(sym)) + "'");
  const symbol& s = it->second;
  switch (s.k) {
    case symbol::kind::region: return regions_[s.index].base + offset;
    case symbol::kind::local: return s.offset + offset;  // a .local-space address
    case symbol::kind::param: fail_at(error_kind::unsupported, t, "the address of a kernel parameter");
  }
  return 0;
}

template <value_domain D, observer O>
inline auto engine<D, O>::read(std::uint32_t t, const xoperand& o) -> value {
  switch (o.k) {
    case xoperand::kind::reg: {
      const value& v = reg(t, o.reg);
      if (v.t == value::tag::empty) [[unlikely]] undefined_read(t, o.reg, v);
      if (o.negated) return value::of_bits(!truth(t, v));
      return v;
    }
    case xoperand::kind::imm: return value::of_bits(o.imm);
    case xoperand::kind::special:
      if (o.sp == special_reg::unsupported) fail_at(error_kind::unsupported, t, detail::special_message(p_.str(o.sym)));
      return value::of_bits(special(t, o.sp));
    case xoperand::kind::symbol: {
      value v = value::of_bits(symbol_address(t, o.sym, o.imm));
      v.provenance = symbol_provenance(o.sym);
      return v;
    }
    default: fail_at(error_kind::unsupported, t, "operand form");
  }
}

// Register r of thread t holds the undefined value v (an empty cell) and the thread's current
// instruction reads it: a data instruction's result is undefined (undefined_operand, caught in
// generic_step), anything else is the error.
template <value_domain D, observer O>
void engine<D, O>::undefined_read(std::uint32_t t, std::uint32_t r, const value& v) {
  if (v.is_in_flight()) fail_at(error_kind::uninitialized, t, undefined_message(r, v));
  if (v.is_cache_policy()) {
    if (ptx::computes_data(p_.code[pc_[t]].op)) throw undefined_operand{v};  // still a policy
    fail_at(error_kind::unsupported, t, undefined_message(r, v));
  }
  if (v.bits == value::poisoned_atomic)
    fail_at(error_kind::not_structured, t,
            "register " + register_name(r) +
                " holds the old value returned by an atomic on symbolic data, which depends on the schedule");
  if (ptx::computes_data(p_.code[pc_[t]].op))
    throw undefined_operand{v.is_derived_undefined() ? v : value::undefined_from(r, pc_[t])};
  fail_at(error_kind::uninitialized, t, undefined_message(r, v));
}

// "register %r is read before it is written", and for a computed undefined value where it came from.
template <value_domain D, observer O>
inline std::string engine<D, O>::undefined_message(std::uint32_t r, const value& v) const {
  if (v.is_in_flight()) return wgmma_in_flight_message(r, v.provenance - 1);
  if (v.is_cache_policy())
    return "register " + register_name(r) + " holds an L2 cache policy (from `" + instruction_text(v.provenance - 1) +
           "` at " + where(v.provenance - 1) + "), whose bits the PTX ISA leaves opaque: gpueq runs a policy only " +
           "as the cache-hint operand of a load, store or copy (.L2::cache_hint), not as data or an address";
  if (!v.is_derived_undefined()) return "register " + register_name(r) + " is read before it is written";
  return "register " + register_name(r) + " holds an undefined value, computed from a register never written: register " +
         register_name(static_cast<std::uint32_t>(v.bits >> 32)) + " is read before it is written at " +
         where(v.provenance - 1) + " (`" + instruction_text(v.provenance - 1) + "`)";
}

// A collective's data operand: read, except that an undefined register gives its undefined
// value (a shfl moves it to the lane that reads it) instead of stopping the run.
template <value_domain D, observer O>
inline auto engine<D, O>::read_data(std::uint32_t t, const xoperand& o) -> value {
  if (o.k == xoperand::kind::reg) {
    const value& v = reg(t, o.reg);
    if (v.t == value::tag::empty && v.bits != value::poisoned_atomic && !v.is_in_flight())
      return v.is_derived_undefined() || v.is_cache_policy() ? v : value::undefined_from(o.reg, pc_[t]);
  }
  return read(t, o);
}

// The undefined value u written to every destination of x (a data instruction).
template <value_domain D, observer O>
inline void engine<D, O>::write_undefined(std::uint32_t t, const xinstr& x, const value& u) {
  if (x.ops.empty()) return;
  const xoperand& d = x.ops[0];
  if (d.k == xoperand::kind::vector)
    for (const xoperand& e : d.elems) write(t, e, u);
  else
    write(t, d, u);
  if (x.has(flag::cc)) reg(t, p_.carry_register) = u;  // the carry out is undefined too
}

// Two packed 16-bit halves (hi << 16 | lo; two fp8 values: hi << 8 | lo) read as one number of kind k. A bf16 is the high
// half of an f32, so `mov.b32 %f, {0, %rs}` (what __bfloat162float compiles to for sm_80 and
// later) is the bf16 value itself, exactly, as an f32: that holds for symbolic halves too.
// A 16-bit read is the low half (cvt takes the low bits of a wider register). Otherwise the 32
// bits must be concrete (in float32 runs they always are): nullopt when they are not.
template <value_domain D, observer O>
inline auto engine<D, O>::packed_number(const value& v, rkind k, std::uint32_t t) -> std::optional<real> {
  if (k == v.k) return v.r;
  const unsigned half = 8 * bytes(v.k);  // 16, or 8 for an fp8 pair
  auto lo = d_.float_bits(v.r, v.k);
  if (k == rkind::f32 && v.k == rkind::bf16 && lo && *lo == 0) return v.r2;
  if (lo && bytes(k) == bytes(v.k)) return guarded([&] { return d_.from_float(*lo, k); }, t);
  auto hi = d_.float_bits(v.r2, v.k);
  if (!lo || !hi) return std::nullopt;
  std::uint64_t bits = *lo | *hi << half;
  if (k == rkind::integer) return d_.from_int(static_cast<std::int64_t>(bits));
  return guarded([&] { return d_.from_float(bits, k); }, t);
}

template <value_domain D, observer O>
inline std::string engine<D, O>::packed_number_error(rkind half) {
  if (half == rkind::f32)
    return "two f32 values held as one 64-bit word pair (LLVM's i64 move of two floats) are read as one number; "
           "take them apart with mov.b64 {lo, hi} first";
  if (half == rkind::e4m3 || half == rkind::e5m2)
    return std::string("two symbolic ") + (half == rkind::e4m3 ? "e4m3" : "e5m2") +
           " values packed in 16 bits are read as one number (convert them with cvt.f16x2." +
           (half == rkind::e4m3 ? "e4m3x2" : "e5m2x2") + ")";
  return std::string("two symbolic ") + (half == rkind::bf16 ? "bf16" : "f16") +
         " halves packed in 32 bits are read as one number; only a bf16 in the high half with a zero low "
         "half (bf16 to f32, as __bfloat162float does) is a value of its own";
}

// The two halves of a packed operand (f16x2, bf16x2) as values of kind k: a packed cell's own,
// else its bits decoded half by half (to_bits fails on symbolic data).
template <value_domain D, observer O>
inline auto engine<D, O>::packed_halves(const value& v, rkind k, std::uint32_t t) -> std::pair<real, real> {
  if (v.t == value::tag::packed) return {v.r, v.r2};
  const std::uint64_t b = to_bits(v, t);
  return {guarded([&] { return d_.from_float(b & 0xffff, k); }, t),
          guarded([&] { return d_.from_float(b >> 16 & 0xffff, k); }, t)};
}

// The f32 value of the low 32 bits, when that value gives the bits back (not for a -0, 0x80000000,
// which is the real 0, nor for a NaN, which the domain refuses): how a word of concrete bits is
// kept beside a symbolic word in a word pair (integer.hpp's word_pair_op, move.hpp's pack).
template <value_domain D, observer O>
inline auto engine<D, O>::f32_word(std::uint64_t bits, std::uint32_t t) -> std::optional<real> {
  bits &= 0xffffffffu;
  real r = guarded([&] { return d_.from_float(bits, rkind::f32); }, t);
  if (d_.float_bits(r, rkind::f32) != std::optional<std::uint64_t>(bits)) return std::nullopt;
  return r;
}

// The value of a cell as a domain value of kind k (bits are decoded in format k).
template <value_domain D, observer O>
inline auto engine<D, O>::to_real(const value& v, rkind k, std::uint32_t t) -> real {
  switch (v.t) {
    case value::tag::real: return v.r;
    case value::tag::bits:
      if (k == rkind::integer) return d_.from_int(static_cast<std::int64_t>(v.bits));
      return guarded([&] { return d_.from_float(v.bits, k); }, t);
    case value::tag::packed:
      if (auto r = packed_number(v, k, t)) return *r;
      fail_at(error_kind::not_structured, t, packed_number_error(v.k));
    default: fail_at(error_kind::not_structured, t, "a symbolic predicate used as a number");
  }
}

// The bits of a cell (for integer and bit instructions): concrete values only.
template <value_domain D, observer O>
inline std::uint64_t engine<D, O>::to_bits(const value& v, std::uint32_t t) {
  switch (v.t) {
    case value::tag::bits: return v.bits;
    case value::tag::real: {
      if (v.k == rkind::integer) {
        if (auto i = d_.integer(v.r)) return static_cast<std::uint64_t>(*i);
      } else if (auto b = d_.float_bits(v.r, v.k)) {
        return *b;
      }
      fail_at(error_kind::not_structured, t,
              "an integer or bit operation, an address or a branch depends on symbolic data (" + d_.show(v.r) + ")");
    }
    case value::tag::packed: {
      auto lo = d_.float_bits(v.r, v.k), hi = d_.float_bits(v.r2, v.k);
      if (lo && hi) return *lo | (*hi << (8 * bytes(v.k)));
      fail_at(error_kind::not_structured, t, "a bit operation on packed symbolic halves");
    }
    default: fail_at(error_kind::not_structured, t, "a symbolic predicate used as bits");
  }
}

template <value_domain D, observer O>
inline bool engine<D, O>::is_symbolic(const value& v) {
  if (v.t == value::tag::bits) return false;
  if (v.t == value::tag::real && v.k == rkind::integer) return !d_.integer(v.r);
  if (v.t == value::tag::real) return !d_.float_bits(v.r, v.k);
  return true;
}

// A predicate's truth; symbolic comparisons steer control flow only under a case split.
template <value_domain D, observer O>
inline bool engine<D, O>::truth(std::uint32_t t, const value& v) {
  if (v.t == value::tag::bits) return v.bits & 1;
  if (v.t == value::tag::predicate) {
    if (auto b = branch(v)) return *b;
    fail_at(error_kind::not_structured, t,
            "a predicate compares symbolic values (" + d_.show(v.r) + " vs " + d_.show(v.r2) +
                ") and decides control flow or a guarded instruction");
  }
  if (auto i = v.t == value::tag::real ? d_.integer(v.r) : std::nullopt) return *i != 0;
  fail_at(error_kind::not_structured, t, "a predicate depends on symbolic data");
}
}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
