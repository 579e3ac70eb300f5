// Pure helpers the instruction families share, none of which needs engine state: the mask and
// sign extension of a PTX integer type, a fast form's cut of a value to a type, and the float mode
// (rounding, .ftz, .sat, .approx) an instruction asks for.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/program.hpp>
#include <gpueq/exec/values.hpp>

#include <algorithm>
#include <cstdint>

namespace gpueq::exec {

// The bits a value of type t occupies (all 64 for 8-byte types).
inline std::uint64_t mask_of(vtype t) {
  std::uint32_t b = bytes(t);
  return b >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * b)) - 1;
}

// v read as a value of type t, sign-extended from t's width.
inline std::int64_t sext(std::uint64_t v, vtype t) {
  std::uint32_t b = bytes(t);
  if (b >= 8) return static_cast<std::int64_t>(v);
  unsigned shift = 64 - 8 * b;
  return static_cast<std::int64_t>(v << shift) >> shift;
}

// v clamped to the range of integer type `to` (cvt's .sat, add.sat.s32, mad24.hi.sat.s32).
inline std::int64_t clamp(std::int64_t v, vtype to) {
  std::uint32_t b = bytes(to);
  if (b >= 8) return is_signed(to) ? v : std::max<std::int64_t>(v, 0);
  if (is_signed(to)) {
    std::int64_t hi = (std::int64_t{1} << (8 * b - 1)) - 1, lo = -hi - 1;
    return std::clamp(v, lo, hi);
  }
  std::int64_t hi = (std::int64_t{1} << (8 * b)) - 1;
  return std::clamp<std::int64_t>(v, 0, hi);
}

// The rounding (round to nearest when the instruction names none) and flags a float operation runs
// with.
inline float_mode mode_of(const xinstr& x) {
  float_mode m;
  m.round = x.round == rounding::none ? rounding::rn : x.round;
  m.ftz = x.has(flag::ftz);
  m.sat = x.has(flag::sat);
  m.approx = x.has(flag::approx);
  m.nan = x.has(flag::nan_);
  return m;
}

// A fast form's cut of v to a type: (v << shift) >> shift, arithmetically when the type is signed.
inline std::uint64_t cut(std::uint64_t v, unsigned shift, bool sign) {
  return sign ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift) : (v << shift) >> shift;
}

}  // namespace gpueq::exec
