// Integer and bit arithmetic (semantics of engine<D, O>, declared in exec/engine.hpp): the integer
// ALU on concrete bits (with the provenance of address arithmetic), the part of it that integer
// *data* may take part in symbolically (data_op), and the fast forms of the common integer
// instructions, integer cvt and integer setp.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// Integer arithmetic that integer *data* may take part in (symbolic in a symbolic run).
template <value_domain D, observer O>
inline std::optional<aop> engine<D, O>::data_op(const xinstr& x) const {
  using op = ptx::opcode;
  switch (x.op) {
    // With .cc the carry out is a bit of the sum, which symbolic data does not have.
    case op::add: return x.has(flag::cc) ? std::nullopt : std::optional(aop::add);
    case op::sub: return x.has(flag::cc) ? std::nullopt : std::optional(aop::sub);
    case op::mul: return x.has(flag::hi) ? std::nullopt : std::optional(aop::mul);
    case op::mad: return x.has(flag::hi) || x.has(flag::cc) ? std::nullopt : std::optional(aop::fma);
    case op::neg: return aop::neg;
    case op::abs: return aop::abs;
    case op::min: return aop::min;
    case op::max: return aop::max;
    default: return std::nullopt;
  }
}

template <value_domain D, observer O>
inline void engine<D, O>::integer_op(std::uint32_t t, const xinstr& x) {
  using op = ptx::opcode;
  std::size_t n = x.ops.size() - 1;
  if ((x.op == op::min || x.op == op::max) && n != 2)
    fail_at(error_kind::unsupported, t, "three-input min/max exists for .f32 only (PTX ISA)");
  value in[5];
  for (std::size_t i = 0; i < n && i < 5; ++i) in[i] = read(t, x.ops[i + 1]);
  // A word pair (two f32 values without bits of their own: symbolic, or in the exact domain a
  // rational no f32 holds) takes part word by word or not at all.
  for (std::size_t i = 0; i < n && i < 5; ++i)
    if (in[i].t == value::tag::packed && in[i].k == rkind::f32) {
      if (auto v = word_pair_op(t, x, in, n)) return write(t, x.ops[0], *v);
      break;
    }
  if constexpr (D::symbolic) {
    bool symbolic = false;
    for (std::size_t i = 0; i < n && i < 5; ++i) symbolic = symbolic || is_symbolic(in[i]);
    if (symbolic) {
      auto o = data_op(x);
      if (!o || x.op == op::bfe)
        fail_at(error_kind::not_structured, t,
                std::string("integer instruction '") + std::string(ptx::name(x.op)) + "' on symbolic data");
      real args[3];
      for (std::size_t i = 0; i < n && i < 3; ++i) args[i] = to_real(in[i], rkind::integer, t);
      real r = guarded([&] { return d_.arith(*o, std::span<const real>(args, std::min<std::size_t>(n, 3)), rkind::integer, {}); }, t);
      return write(t, x.ops[0], value::of_real(r, rkind::integer));
    }
  }
  std::uint64_t a = n > 0 ? to_bits(in[0], t) : 0, b = n > 1 ? to_bits(in[1], t) : 0, c = n > 2 ? to_bits(in[2], t) : 0;
  vtype ty = x.type;
  std::uint64_t m = mask_of(ty);
  bool s = is_signed(ty);
  std::int64_t sa = sext(a, ty), sb = sext(b, ty);
  std::uint64_t ua = a & m, ub = b & m;
  auto wide_type = [&] {
    switch (ty) {
      case vtype::s16: return vtype::s32;
      case vtype::u16: return vtype::u32;
      case vtype::s32: return vtype::s64;
      default: return vtype::u64;
    }
  };
  auto product = [&](std::uint64_t& lo, std::uint64_t& hi) {  // full 2w-bit product
    if (bytes(ty) <= 4) {
      std::uint64_t p = s ? static_cast<std::uint64_t>(sa * sb) : ua * ub;
      lo = p & m;
      hi = (p >> (8 * bytes(ty))) & m;
      if (x.has(flag::wide)) lo = p;
    } else {
      __extension__ using u128 = unsigned __int128;
      __extension__ using i128 = __int128;
      u128 p = s ? static_cast<u128>(static_cast<i128>(sa) * sb) : static_cast<u128>(ua) * ub;
      lo = static_cast<std::uint64_t>(p);
      hi = static_cast<std::uint64_t>(p >> 64);
    }
  };
  // The carry flag (program::carry_register): addc, subc and madc add CC.CF in (subc subtracts
  // it as a borrow); with .cc, add, sub, mad and those three write the carry out of their
  // addition (the borrow out of a subtraction) to it. Both on the w-bit patterns of the type,
  // signed or not, as the PTX ISA defines them (d = a + b + CC.CF; d = a - (b + CC.CF);
  // d = t<hi or lo half> + c + CC.CF).
  const bool carry_in = x.op == op::addc || x.op == op::subc || x.op == op::madc;
  std::uint64_t cf = 0;
  if (carry_in) {
    xoperand flag_reg;
    flag_reg.k = xoperand::kind::reg;
    flag_reg.reg = p_.carry_register;
    cf = to_bits(read(t, flag_reg), t) & 1;
  }
  std::uint64_t carry_out = 0;
  const unsigned width = 8 * bytes(ty);
  __extension__ using u128 = unsigned __int128;
  auto carry_add = [&](std::uint64_t p, std::uint64_t q) {  // p + q + cf, noting the carry out
    const u128 sum = static_cast<u128>(p & m) + (q & m) + cf;
    carry_out = static_cast<std::uint64_t>(sum >> width) & 1;
    return static_cast<std::uint64_t>(sum);
  };
  std::uint64_t r = 0;
  vtype out = ty;
  switch (x.op) {
    case op::add: case op::addc:
      r = carry_add(a, b);
      // add.sat.s32 (the ISA's only .sat integer add) clamps to the s32 range instead of wrapping.
      if (x.has(flag::sat) && x.op == op::add) r = static_cast<std::uint64_t>(clamp(sa + sb, vtype::s32));
      break;
    case op::sub: case op::subc:
      r = a - b - cf;
      carry_out = static_cast<u128>(ua) < static_cast<u128>(ub) + cf;  // the borrow out
      if (x.has(flag::sat) && x.op == op::sub) r = static_cast<std::uint64_t>(clamp(sa - sb, vtype::s32));
      break;
    case op::mul: {
      std::uint64_t lo, hi;
      product(lo, hi);
      r = x.has(flag::hi) ? hi : lo;
      if (x.has(flag::wide)) out = wide_type();
      break;
    }
    case op::mad: case op::madc: {
      if (x.has(flag::wide) && (x.has(flag::cc) || carry_in))
        fail_at(error_kind::unsupported, t, "a carry with mad.wide (the PTX ISA defines it on .hi and .lo only)");
      std::uint64_t lo, hi;
      product(lo, hi);
      r = x.has(flag::wide) ? lo + c : carry_add(x.has(flag::hi) ? hi : lo, c);
      if (x.has(flag::wide)) out = wide_type();
      break;
    }
    // The product of the operands' low 24 bits (sign-extended from bit 23 for .s32), 48 bits:
    // .lo its bits 0..31, .hi its bits 16..47 (PTX ISA mul24/mad24); mad24 adds c to that.
    case op::mul24: case op::mad24: {
      auto low24 = [&](std::uint64_t v) {
        return s ? (static_cast<std::int64_t>(v << 40) >> 40) : static_cast<std::int64_t>(v & 0xffffff);
      };
      const std::int64_t p = low24(a) * low24(b);
      r = x.has(flag::hi) ? static_cast<std::uint64_t>(p >> 16) : static_cast<std::uint64_t>(p);
      if (x.op == op::mad24) r += c;
      if (x.op == op::mad24 && x.has(flag::sat))  // mad24.hi.sat.s32: the sum clamped to s32
        r = static_cast<std::uint64_t>(clamp((p >> 16) + sext(c, vtype::s32), vtype::s32));
      break;
    }
    case op::sad: r = (s ? static_cast<std::uint64_t>(std::abs(sa - sb)) : (ua > ub ? ua - ub : ub - ua)) + c; break;
    case op::div:
      if (ub == 0) fail_at(error_kind::domain, t, "integer division by zero");
      r = s ? static_cast<std::uint64_t>(sa / sb) : ua / ub;
      break;
    case op::rem:
      if (ub == 0) fail_at(error_kind::domain, t, "integer remainder by zero");
      r = s ? static_cast<std::uint64_t>(sa % sb) : ua % ub;
      break;
    case op::abs: r = static_cast<std::uint64_t>(sa < 0 ? -sa : sa); break;
    case op::neg: r = static_cast<std::uint64_t>(-sa); break;
    case op::min: r = s ? static_cast<std::uint64_t>(std::min(sa, sb)) : std::min(ua, ub); break;
    case op::max: r = s ? static_cast<std::uint64_t>(std::max(sa, sb)) : std::max(ua, ub); break;
    case op::and_: r = a & b; break;
    case op::or_: r = a | b; break;
    case op::xor_: r = a ^ b; break;
    case op::not_: r = ~a; break;
    case op::cnot: r = ua == 0; break;
    case op::shl: r = (b & 0xffffffff) >= 8 * bytes(ty) ? 0 : a << (b & 0xffffffff); break;
    case op::shr: {
      std::uint64_t sh = std::min<std::uint64_t>(b & 0xffffffff, 8 * bytes(ty));
      if (s) r = static_cast<std::uint64_t>(sh >= 64 ? (sa < 0 ? -1 : 0) : sa >> std::min<std::uint64_t>(sh, 63));
      else r = sh >= 64 ? 0 : ua >> sh;
      break;
    }
    case op::popc: r = static_cast<std::uint64_t>(std::popcount(ua)); out = vtype::u32; break;
    case op::clz: r = static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - 8 * static_cast<int>(bytes(ty)))); out = vtype::u32; break;
    case op::brev: {
      std::uint64_t v = 0;
      unsigned w = 8 * bytes(ty);
      for (unsigned i = 0; i < w; ++i) v |= ((ua >> i) & 1) << (w - 1 - i);
      r = v;
      break;
    }
    case op::bfind: {
      unsigned w = 8 * bytes(ty);
      std::uint64_t v = s && sa < 0 ? ~ua & m : ua;
      r = v == 0 ? 0xffffffffu : static_cast<std::uint64_t>(63 - std::countl_zero(v));
      if (x.has(flag::shiftamt) && v) r = w - 1 - r;
      out = vtype::u32;
      break;
    }
    case op::bfe: {
      unsigned pos = static_cast<unsigned>(b & 0xff), len = static_cast<unsigned>(c & 0xff), w = 8 * bytes(ty);
      std::uint64_t v = 0;
      bool sign = s && len > 0 && ((ua >> std::min(pos + len - 1, w - 1)) & 1);
      for (unsigned i = 0; i < w; ++i) {
        bool bit = i < len ? (pos + i < w ? (ua >> (pos + i)) & 1 : sign) : (s ? sign : 0);
        v |= std::uint64_t{bit} << i;
      }
      r = v;
      break;
    }
    case op::bfi: {
      std::uint64_t d4 = n > 3 ? to_bits(in[3], t) : 0;
      unsigned pos = static_cast<unsigned>(c & 0xff), len = static_cast<unsigned>(d4 & 0xff), w = 8 * bytes(ty);
      std::uint64_t v = ub;
      for (unsigned i = 0; i < len && pos + i < w; ++i) {
        v &= ~(std::uint64_t{1} << (pos + i));
        v |= ((ua >> i) & 1) << (pos + i);
      }
      r = v;
      break;
    }
    case op::prmt: {
      if (x.has(flag::f4e) || n != 3) fail_at(error_kind::unsupported, t, "prmt mode");
      std::uint64_t bytes8 = (ua & 0xffffffff) | ((ub & 0xffffffff) << 32);
      std::uint64_t v = 0;
      for (unsigned i = 0; i < 4; ++i) {
        unsigned sel = static_cast<unsigned>((c >> (4 * i)) & 0xf);
        std::uint64_t byte = (bytes8 >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        v |= byte << (8 * i);
      }
      r = v;
      break;
    }
    // dp4a.atype.btype d, a, b, c and dp2a.mode.atype.btype d, a, b, c (PTX ISA, "Integer
    // Arithmetic Instructions: dp4a / dp2a"; sm_61): the bytes (dp4a) or the two 16-bit halves
    // (dp2a's a) of a, and the bytes of b, sign- or zero-extended by their own type, multiplied
    // pairwise and added to c; dp2a takes b's low two bytes with .lo, its high two with .hi. c and
    // d are .u32 when both types are .u32, else .s32; the sum wraps modulo 2^32 (the ISA states no
    // saturation). x.types is {atype, btype}.
    case op::dp4a: case op::dp2a: {
      auto int32_type = [](vtype v) { return v == vtype::u32 || v == vtype::s32; };
      if (x.types.size() != 2 || !int32_type(x.types[0]) || !int32_type(x.types[1]))
        fail_at(error_kind::unsupported, t, std::string(ptx::name(x.op)) + " needs two types, each .u32 or .s32");
      const bool sa_signed = x.types[0] == vtype::s32, sb_signed = x.types[1] == vtype::s32;
      auto part = [](std::uint64_t v, unsigned index, unsigned bits, bool sgn) {
        std::uint64_t p = (v >> (bits * index)) & ((std::uint64_t{1} << bits) - 1);
        if (sgn && (p >> (bits - 1)) & 1) return static_cast<std::int64_t>(p) - (std::int64_t{1} << bits);
        return static_cast<std::int64_t>(p);
      };
      std::int64_t sum = 0;
      if (x.op == op::dp4a) {
        for (unsigned i = 0; i < 4; ++i) sum += part(a, i, 8, sa_signed) * part(b, i, 8, sb_signed);
      } else {
        if (x.has(flag::lo) == x.has(flag::hi)) fail_at(error_kind::unsupported, t, "dp2a needs one mode, .lo or .hi");
        const unsigned first = x.has(flag::hi) ? 2 : 0;
        for (unsigned i = 0; i < 2; ++i) sum += part(a, i, 16, sa_signed) * part(b, first + i, 8, sb_signed);
      }
      r = (static_cast<std::uint64_t>(sum) + c) & 0xffffffffu;
      out = sa_signed || sb_signed ? vtype::s32 : vtype::u32;
      break;
    }
    // bmsk.mode.b32 d, a, b (PTX ISA 7.6, sm_70): a mask of b bits starting at bit a, computed as
    // the ISA's pseudo-code states it: a1 = a & 31, b1 = b & 31; with .clamp a >= 32 gives 0 and
    // b >= 32 a mask from bit a to bit 31; with .wrap only a1 and b1 count; a1 + b1 >= 32 ends the
    // mask at bit 31.
    case op::bmsk: {
      if (x.has(flag::clamp) == x.has(flag::wrap))
        fail_at(error_kind::unsupported, t, "bmsk needs one mode, .clamp or .wrap");
      const std::uint32_t a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
      const unsigned a1 = a32 & 31, b1 = b32 & 31, total = a1 + b1;
      std::uint32_t mask0 = ~std::uint32_t{0} << a1;
      std::uint32_t mask1 = total < 32 ? ~std::uint32_t{0} << total : 0;
      bool position_over = false, width_over = false;
      if (x.has(flag::clamp)) {
        if (a32 >= 32) {
          position_over = true;
          mask0 = 0;
        }
        width_over = b32 >= 32;
      }
      if (total >= 32 || position_over || width_over) mask1 = 0;
      else if (b1 == 0) mask1 = ~std::uint32_t{0};
      r = mask0 & ~mask1;
      out = vtype::b32;
      break;
    }
    // szext.mode.type d, a, b (PTX ISA 7.6, sm_70): the low b bits of a, sign-extended (.s32) or
    // zero-extended (.u32) to 32 bits, as the ISA's pseudo-code computes it: b = 0 gives 0; b >= 32
    // gives a itself with .clamp and counts b & 31 with .wrap (so .wrap with b = 32 gives 0).
    case op::szext: {
      if (x.has(flag::clamp) == x.has(flag::wrap))
        fail_at(error_kind::unsupported, t, "szext needs one mode, .clamp or .wrap");
      if (ty != vtype::u32 && ty != vtype::s32) fail_at(error_kind::unsupported, t, "szext needs type .u32 or .s32");
      const std::uint32_t a32 = static_cast<std::uint32_t>(a), b32 = static_cast<std::uint32_t>(b);
      const unsigned b1 = b32 & 31;
      const bool too_large = b32 >= 32 && x.has(flag::clamp);
      const std::uint32_t mask = too_large ? 0 : ~std::uint32_t{0} << b1;
      const unsigned sign_pos = (b1 - 1) & 31;
      const bool sign_bit = b1 != 0 && !too_large && ty == vtype::s32 && ((a32 >> sign_pos) & 1);
      r = (a32 & ~mask) | (sign_bit ? mask : 0);
      break;
    }
    // fns.b32 d, mask, base, offset (PTX ISA): the position of the |offset|-th set bit
    // of mask counted from bit base upwards (offset > 0) or downwards (offset < 0), base itself
    // included; offset 0 asks whether bit base is set. 0xffffffff when there is no such bit. The
    // ISA leaves base > 31 undefined: gpueq stops the run there (domain error) rather than pick a
    // value.
    case op::fns: {
      const std::uint32_t mask = static_cast<std::uint32_t>(a), base = static_cast<std::uint32_t>(b);
      const std::int32_t offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(c));
      if (base > 31)
        fail_at(error_kind::domain, t,
                "fns with base " + std::to_string(base) + " (the PTX ISA leaves base > 31 undefined)");
      std::uint64_t found = 0xffffffffu;
      if (offset == 0) {
        if ((mask >> base) & 1) found = base;
      } else {
        std::int64_t count = (offset > 0 ? std::int64_t{offset} : -std::int64_t{offset}) - 1;
        const int step = offset > 0 ? 1 : -1;
        for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += step)
          if ((mask >> pos) & 1) {
            if (count == 0) {
              found = static_cast<std::uint64_t>(pos);
              break;
            }
            --count;
          }
      }
      r = found;
      out = vtype::b32;
      break;
    }
    case op::lop3: {
      std::uint64_t lut = to_bits(in[3], t) & 0xff, v = 0;
      for (unsigned i = 0; i < 8 * bytes(ty); ++i) {
        unsigned idx = static_cast<unsigned>(((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1));
        v |= ((lut >> idx) & 1) << i;
      }
      r = v;
      break;
    }
    case op::shf: {
      unsigned sh = static_cast<unsigned>(c & 0xffffffff);
      sh = x.has(flag::wrap) ? sh & 31 : std::min(sh, 32u);
      std::uint64_t both = (ub & 0xffffffff) << 32 | (ua & 0xffffffff);
      r = x.has(flag::l) ? (both << sh) >> 32 : both >> sh;
      break;
    }
    default: fail_at(error_kind::unsupported, t, "this integer instruction");
  }
  if (ty == vtype::pred) return write(t, x.ops[0], value::of_bits(r & 1));
  r &= mask_of(out);
  if (is_signed(out)) r = static_cast<std::uint64_t>(sext(r, out));
  value result = value::of_bits(r);
  // Address arithmetic keeps the array the address came from: base + offset, base - offset,
  // and mad's addend (mad.wide idx, 4, base).
  std::uint32_t pa = in[0].t == value::tag::bits ? in[0].provenance : 0;
  std::uint32_t pb = n > 1 && in[1].t == value::tag::bits ? in[1].provenance : 0;
  std::uint32_t pc = n > 2 && in[2].t == value::tag::bits ? in[2].provenance : 0;
  if (x.op == op::add) result.provenance = pa && pb ? 0 : pa + pb;
  else if (x.op == op::sub) result.provenance = pb ? 0 : pa;
  else if (x.op == op::mad && !x.has(flag::hi)) result.provenance = pc;
  write(t, x.ops[0], result);
  if (x.has(flag::cc)) reg(t, p_.carry_register) = value::of_bits(carry_out);
}

// 64-bit bit operations on values whose two 32-bit words are each an f32 value (symbolic or
// not) or concrete bits, done word by word: what LLVM's NVPTX back end (Triton's output) makes of
// two floats moved as one i64 (cvt.u64.u32 of each, shl.b64 by 32, or.b64; mov.b64 {lo, hi}
// takes them apart). The result is a word pair (a packed cell of kind f32) or concrete bits.
// nullopt when an operation would mix a symbolic word's bits with other bits (a shift by other
// than 0, 32 or 64 or an arithmetic one, or, and, xor or add of a symbolic word with anything but
// the identity's bits, an add that could carry): the caller reports such a run as not structured.
template <value_domain D, observer O>
inline auto engine<D, O>::word_pair_op(std::uint32_t t, const xinstr& x, const value* in, std::size_t n)
    -> std::optional<value> {
  using op = ptx::opcode;
  // (.cc: the carry out is a bit of the sum; the caller's integer path writes it, or fails.)
  if (bytes(x.type) != 8 || n != 2 || x.has(flag::cc)) return std::nullopt;
  if (x.op != op::shl && x.op != op::shr && x.op != op::and_ && x.op != op::or_ && x.op != op::xor_ && x.op != op::add)
    return std::nullopt;
  struct word {
    bool known = true;
    std::uint32_t bits = 0;
    real r{};
  };
  auto words = [&](const value& v, word (&w)[2]) {
    if (v.t == value::tag::bits) {
      w[0].bits = static_cast<std::uint32_t>(v.bits);
      w[1].bits = static_cast<std::uint32_t>(v.bits >> 32);
      return true;
    }
    if (v.t != value::tag::packed || v.k != rkind::f32) return false;
    const real* rs[2] = {&v.r, &v.r2};
    for (int h = 0; h < 2; ++h) {
      if (auto b = d_.float_bits(*rs[h], rkind::f32)) w[h].bits = static_cast<std::uint32_t>(*b);
      else w[h] = {false, 0, *rs[h]};
    }
    return true;
  };
  word a[2], b[2], r[2];
  if (!words(in[0], a)) return std::nullopt;
  if (x.op == op::shl || x.op == op::shr) {
    if (in[1].t != value::tag::bits || (x.op == op::shr && is_signed(x.type))) return std::nullopt;
    const std::uint64_t by = in[1].bits & 0xffffffff;
    if (by == 0) {
      r[0] = a[0], r[1] = a[1];
    } else if (by == 32) {
      if (x.op == op::shl) r[1] = a[0];  // r[0] stays known 0
      else r[0] = a[1];
    } else if (by < 64) {
      return std::nullopt;
    }  // by >= 64: all zero
  } else {
    if (!words(in[1], b)) return std::nullopt;
    for (int i = 0; i < 2; ++i) {
      if (a[i].known && b[i].known) {
        if (x.op == op::add && (a[i].bits != 0 && b[i].bits != 0)) return std::nullopt;  // might carry
        r[i].bits = x.op == op::and_ ? a[i].bits & b[i].bits
                    : x.op == op::xor_ ? a[i].bits ^ b[i].bits
                                       : a[i].bits | b[i].bits;  // or, and add without a carry
        continue;
      }
      if (!a[i].known && !b[i].known) return std::nullopt;
      const word& sym = a[i].known ? b[i] : a[i];
      const std::uint32_t other = a[i].known ? a[i].bits : b[i].bits;
      if (x.op == op::and_ ? other == 0xffffffffu : other == 0) r[i] = sym;
      else if (x.op == op::and_ && other == 0) r[i] = word{};
      else return std::nullopt;
    }
  }
  if (r[0].known && r[1].known) return value::of_bits(std::uint64_t{r[0].bits} | std::uint64_t{r[1].bits} << 32);
  // A known word beside a symbolic one is kept as the f32 value of its bits (f32_word).
  real rs[2];
  for (int i = 0; i < 2; ++i) {
    if (!r[i].known) {
      rs[i] = r[i].r;
      continue;
    }
    auto word = f32_word(r[i].bits, t);
    if (!word) return std::nullopt;
    rs[i] = *word;
  }
  return value::of_packed(rs[0], rs[1], rkind::f32);
}

// Integer forms: every source register must hold concrete bits.
template <value_domain D, observer O>
template <fast_op Op>
inline bool engine<D, O>::fast_integer(lane_regs regs, const fast_form& f) {
  std::uint64_t v[3] = {f.imms[0], f.imms[1], f.imms[2]};
  std::uint32_t prov[3] = {0, 0, 0};
  for (std::uint32_t i = 0; i < f.n; ++i) {
    if (f.is_imm(i)) continue;
    const value& c = regs[f.src[i]];
    if (c.t != value::tag::bits) return false;
    v[i] = c.bits;
    prov[i] = c.provenance;
  }
  const std::uint64_t a = v[0], b = v[1], c = v[2];
  const unsigned ts = f.t_shift;
  const bool s = f.t_signed;
  auto sx = [&](std::uint64_t y) { return static_cast<std::int64_t>(y << ts) >> ts; };  // sign-extended
  auto zx = [&](std::uint64_t y) { return (y << ts) >> ts; };                              // zero-extended
  std::uint64_t r = 0;
  std::uint32_t provenance = 0;
  const fast_op op = Op != fast_op::none ? Op : f.op;  // a constant when the caller knows it
  switch (op) {
    case fast_op::int_add: r = a + b; provenance = prov[0] && prov[1] ? 0 : prov[0] + prov[1]; break;
    case fast_op::int_sub: r = a - b; provenance = prov[1] ? 0 : prov[0]; break;
    case fast_op::int_mul_lo: r = a * b; break;
    case fast_op::int_mad_lo: r = a * b + c; provenance = prov[2]; break;
    case fast_op::int_mul_wide: case fast_op::int_mad_wide:
      r = s ? static_cast<std::uint64_t>(sx(a) * sx(b)) : zx(a) * zx(b);
      if (op == fast_op::int_mad_wide) {
        r += c;
        provenance = prov[2];
      }
      break;
    case fast_op::int_shl: r = (b & 0xffffffff) >= 64 - ts ? 0 : a << (b & 0xffffffff); break;
    case fast_op::int_shr: {
      std::uint64_t sh = std::min<std::uint64_t>(b & 0xffffffff, 64 - ts);
      if (s) r = static_cast<std::uint64_t>(sh >= 64 ? (sx(a) < 0 ? -1 : 0) : sx(a) >> std::min<std::uint64_t>(sh, 63));
      else r = sh >= 64 ? 0 : zx(a) >> sh;
      break;
    }
    case fast_op::int_and: r = a & b; break;
    case fast_op::int_or: r = a | b; break;
    case fast_op::int_xor: r = a ^ b; break;
    case fast_op::int_min: r = s ? static_cast<std::uint64_t>(std::min(sx(a), sx(b))) : std::min(zx(a), zx(b)); break;
    case fast_op::int_max: r = s ? static_cast<std::uint64_t>(std::max(sx(a), sx(b))) : std::max(zx(a), zx(b)); break;
    case fast_op::cvt_int: r = s ? static_cast<std::uint64_t>(sx(a)) : zx(a); provenance = prov[0]; break;
    case fast_op::setp_int: {
      std::uint64_t ua = zx(a), ub = zx(b);
      std::int64_t sa = sx(a), sb = sx(b);
      bool q = false;
      switch (f.cmp) {
        case cmp_op::eq: q = ua == ub; break;
        case cmp_op::ne: q = ua != ub; break;
        case cmp_op::lt: q = s ? sa < sb : ua < ub; break;
        case cmp_op::le: q = s ? sa <= sb : ua <= ub; break;
        case cmp_op::gt: q = s ? sa > sb : ua > ub; break;
        case cmp_op::ge: q = s ? sa >= sb : ua >= ub; break;
        case cmp_op::lo: q = ua < ub; break;
        case cmp_op::ls: q = ua <= ub; break;
        case cmp_op::hi: q = ua > ub; break;
        default: q = ua >= ub; break;  // hs (the form admits eq..hs only)
      }
      regs[f.dst[0]] = value::of_bits(q);
      return true;
    }
    default: return false;
  }
  value out = value::of_bits(cut(r, f.r_shift, f.r_signed));
  out.provenance = provenance;
  regs[f.dst[0]] = out;
  return true;
}

// fast_integer's warp form (warp_fast): the form read once for the warp, each lane's registers
// at their place in the warp's. fast_integer changes nothing when it declines.
template <value_domain D, observer O>
template <fast_op Op>
inline std::uint32_t engine<D, O>::warp_integer(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  const fast_form f = p_.fast[pc];  // a copy: no register write can change it
  if (f.guarded) return first;
  value* regs = warp_regs(first);
  std::uint32_t t = first;
  const bool whole = warp_whole_;
  for (; t < end; ++t) {
    if (!whole && status_[t] == status::exited) continue;
    if (!fast_integer<Op>(lane_regs{regs + (t - first)}, f)) break;
    pc_[t] = pc + 1;
    ++ran;
  }
  return t;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
