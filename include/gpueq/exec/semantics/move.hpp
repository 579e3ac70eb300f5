// Moves (semantics of engine<D, O>, declared in exec/engine.hpp): mov, with the packing of a
// vector {a, b} into one register and the unpacking of one into pieces; the guarded move on an
// undecided comparison (`@p mov d, a`, a running max/min); cvta between the generic and the shared
// or local window; isspacep, which asks which window a generic address is in. The fast forms of
// mov and of a special-register read are cases of the engine's fast_step
// (exec/semantics/dispatch.hpp), which runs them without a call.
#pragma once

#include <gpueq/exec/engine.hpp>
#include <gpueq/exec/semantics/bits.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// `@p mov d, a` with p an undecided comparison: d = p ? a : d, which is max/min when the
// comparison is between a and the old d (the running max of a loop).
template <value_domain D, observer O>
inline void engine<D, O>::guarded_move(std::uint32_t t, const xinstr& x, const value& g) {
  value a = read(t, x.ops[1]);
  value old = reg(t, x.ops[0].reg);
  if (old.t == value::tag::empty) fail_at(error_kind::uninitialized, t, "guarded move into an unwritten register");
  auto r = x.guard_negated ? choose(t, old, a, g) : choose(t, a, old, g);
  write(t, x.ops[0], r);
}

template <value_domain D, observer O>
inline void engine<D, O>::mov(std::uint32_t t, const xinstr& x) {
  const xoperand& dst = x.ops[0];
  const xoperand& src = x.ops[1];
  if (src.k == xoperand::kind::vector) {  // pack {a, b} into one wider register
    std::vector<value> parts;
    for (auto& e : src.elems) parts.push_back(read(t, e));
    return write(t, dst, pack(t, parts, bytes(x.type) / static_cast<std::uint32_t>(parts.size())));
  }
  if (dst.k == xoperand::kind::vector) {  // unpack
    value v = read(t, src);
    auto n = static_cast<std::uint32_t>(dst.elems.size());
    for (std::uint32_t i = 0; i < n; ++i) write(t, dst.elems[i], piece(t, v, i, bytes(x.type) / n));
    return;
  }
  value v = read(t, src);
  if (v.t == value::tag::bits && x.type != vtype::pred) v.bits &= mask_of(x.type);
  write(t, dst, std::move(v));
}

// Two 16-bit values into one 32-bit register, or concrete pieces into wider bits.
template <value_domain D, observer O>
inline auto engine<D, O>::pack(std::uint32_t t, const std::vector<value>& parts, std::uint32_t width) -> value {
  bool all_bits = true;
  for (auto& p : parts) all_bits = all_bits && !is_symbolic(p);
  if (all_bits) {
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < parts.size(); ++i)
      bits |= (to_bits(parts[i], t) & (width >= 8 ? ~0ull : ((1ull << (8 * width)) - 1))) << (8 * width * i);
    return value::of_bits(bits);
  }
  if (parts.size() == 2 && width == 2) {
    rkind k = parts[0].t == value::tag::real ? parts[0].k : parts[1].k;
    return value::of_packed(to_real(parts[0], k, t), to_real(parts[1], k, t), k);
  }
  // Two f32 values as one 64-bit word pair (mov.b64 %rd, {%f1, %f2}; integer.hpp's word_pair_op).
  if (parts.size() == 2 && width == 4 && (parts[0].t == value::tag::bits || parts[0].k == rkind::f32) &&
      (parts[1].t == value::tag::bits || parts[1].k == rkind::f32) &&
      parts[0].t != value::tag::packed && parts[1].t != value::tag::packed) {
    real words[2];
    for (int i = 0; i < 2; ++i) {
      if (parts[i].t != value::tag::bits) {
        words[i] = to_real(parts[i], rkind::f32, t);
        continue;
      }
      // Bits beside a symbolic word are kept as their f32 value (f32_word, as word_pair_op does).
      auto word = f32_word(parts[i].bits, t);
      if (!word) fail_at(error_kind::not_structured, t, "packing bits that are no f32 value's beside a symbolic value");
      words[i] = *word;
    }
    return value::of_packed(words[0], words[1], rkind::f32);
  }
  fail_at(error_kind::not_structured, t, "packing symbolic values other than two halves");
}

// Piece i of width w bytes of a value.
template <value_domain D, observer O>
inline auto engine<D, O>::piece(std::uint32_t t, const value& v, std::uint32_t i, std::uint32_t w) -> value {
  // The halves of a pair of 16-bit (or 8-bit) values, the words of a word pair; other pieces of
  // them are bits (to_bits fails on symbolic ones).
  if (v.t == value::tag::packed && w == 2 && bytes(v.k) <= 2) return value::of_real(i == 0 ? v.r : v.r2, v.k);
  if (v.t == value::tag::packed && w == 4 && v.k == rkind::f32) return value::of_real(i == 0 ? v.r : v.r2, v.k);
  std::uint64_t bits = to_bits(v, t);
  std::uint64_t m = w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
  return value::of_bits((bits >> (8 * w * i)) & m);
}

template <value_domain D, observer O>
inline void engine<D, O>::cvta(std::uint32_t t, const xinstr& x) {
  value in = read(t, x.ops[1]);
  std::uint64_t a = to_bits(in, t);
  std::uint64_t window = 0;
  if (x.space == ptx::state_space::shared) window = address::shared_window;
  else if (x.space == ptx::state_space::local) window = address::local_window;
  if (x.has(flag::to)) a -= window;
  else a += window;
  value out = value::of_bits(a & mask_of(x.type));
  out.provenance = in.provenance;
  write(t, x.ops[0], out);
}

// isspacep.space p, a (PTX ISA): whether the generic address a lies in the window of the state
// space. gpueq's generic address space (exec/engine.hpp, namespace address) has a local window, a
// shared window (the executing CTA's shared memory at offsets below 2^24, a cluster CTA's with its
// rank + 1 in the bits from 24 on: exec/semantics/cluster.hpp) and the global window, which is
// every other address: tensors, .global arrays, and .const arrays too (the ISA does not say where
// the constant window lies; gpueq keeps constant memory among the global regions). So:
//   .global                  outside the shared and local windows, .const arrays included
//   .const                   inside a .const array (or a CUtensorMap parameter's 128 bytes)
//   .local                   inside the local window
//   .shared, .shared::cta    inside the shared window, in the executing CTA's shared memory
//                            (.shared means .shared::cta, as the ISA states)
//   .shared::cluster         inside the shared window, in some CTA's of the cluster (without a
//                            cluster, the CTA's own)
//   .param, .param::entry    false: a kernel parameter has no generic address in gpueq (taking
//                            one stops the run as not modelled), so no address a kernel can form
//                            lies in the parameter window
// A window is a range of addresses, not the memory allocated in it: a shared address past the
// last shared array is still in the shared window (using it is the out-of-bounds error).
template <value_domain D, observer O>
inline void engine<D, O>::isspacep(std::uint32_t t, const xinstr& x) {
  const auto& mods = p_.function->instructions[pc_[t]].mods;
  bool cluster = false, entry = false;
  for (std::uint32_t id : mods) {
    cluster = cluster || p_.str(id) == ".shared::cluster";
    entry = entry || p_.str(id) == ".param::entry";
  }
  bool known_mods = x.unknown_mods.empty() || (x.unknown_mods.size() == 1 && entry);
  if ((!x.has_space && !entry) || !known_mods || x.flags || (x.type != vtype::none && x.type != vtype::u32 &&
                                                            x.type != vtype::u64))
    fail_at(error_kind::unsupported, t,
            "isspacep needs one state space: .const, .global, .local, .shared{::cta, ::cluster} or .param{::entry}");
  const std::uint64_t a = to_bits(read(t, x.ops[1]), t);
  const bool local = a >= address::local_window && a - address::local_window < address::window_size;
  const bool shared = a >= address::shared_window && a - address::shared_window < address::window_size;
  bool in = false;
  if (entry) {
    in = false;
  } else {
    switch (x.space) {
      case ptx::state_space::global: in = !local && !shared; break;
      case ptx::state_space::local: in = local; break;
      case ptx::state_space::shared: {
        const std::uint64_t field = shared ? (a - address::shared_window) >> rank_shift : ~std::uint64_t{0};
        in = shared && (cluster ? field <= cluster_ctas_ : field == 0 || field - 1 == rank_of(t));
        break;
      }
      case ptx::state_space::constant: {
        if (local || shared) break;
        auto it = std::upper_bound(global_order_.begin(), global_order_.end(), a,
                                   [&](std::uint64_t v, std::uint32_t index) { return v < regions_[index].base; });
        if (it != global_order_.begin()) {
          const region<real>& r = regions_[*(it - 1)];
          in = r.space == memory_space::constant && a - r.base < r.bytes;
        }
        break;
      }
      default: in = false; break;  // .param: see above
    }
  }
  write(t, x.ops[0], value::of_bits(in));
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
