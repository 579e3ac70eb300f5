// The element types of a spec's tensors and scalars (`"dtype"`): their names, sizes and kinds.
#pragma once

#include <gpueq/exec/values.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpueq::check {

// e4m3 and e5m2 are the 8-bit float formats (exec/floats.hpp): one byte per element in memory; a
// .npy file of such a tensor holds float32 values that are values of the format (numpy has no fp8).
enum class dtype { f16, bf16, f32, f64, s8, u8, s16, u16, s32, u32, s64, u64, e4m3, e5m2 };
inline constexpr std::string_view dtype_names[] = {"f16", "bf16", "f32", "f64", "s8",  "u8",   "s16",
                                                   "u16", "s32",  "u32", "s64", "u64", "e4m3", "e5m2"};
static_assert(std::size(dtype_names) == static_cast<std::size_t>(dtype::e5m2) + 1);
inline std::optional<dtype> dtype_of(std::string_view s) {
  for (std::size_t i = 0; i < std::size(dtype_names); ++i)
    if (dtype_names[i] == s) return static_cast<dtype>(i);
  return std::nullopt;
}
inline std::string_view name(dtype d) { return dtype_names[static_cast<std::size_t>(d)]; }
inline bool is_float(dtype d) {
  return d == dtype::f16 || d == dtype::bf16 || d == dtype::f32 || d == dtype::f64 || d == dtype::e4m3 ||
         d == dtype::e5m2;
}
inline bool is_fp8(dtype d) { return d == dtype::e4m3 || d == dtype::e5m2; }
inline std::uint32_t bytes(dtype d) {
  switch (d) {
    case dtype::s8:
    case dtype::u8:
    case dtype::e4m3:
    case dtype::e5m2: return 1;
    case dtype::f16:
    case dtype::bf16:
    case dtype::s16:
    case dtype::u16: return 2;
    case dtype::f32:
    case dtype::s32:
    case dtype::u32: return 4;
    default: return 8;
  }
}
inline bool is_signed(dtype d) { return d == dtype::s8 || d == dtype::s16 || d == dtype::s32 || d == dtype::s64; }

// What the engine takes an element of the type for: a float format, or an integer datum.
inline exec::rkind rkind_of(dtype d) {
  switch (d) {
    case dtype::f16: return exec::rkind::f16;
    case dtype::bf16: return exec::rkind::bf16;
    case dtype::f32: return exec::rkind::f32;
    case dtype::f64: return exec::rkind::f64;
    case dtype::e4m3: return exec::rkind::e4m3;
    case dtype::e5m2: return exec::rkind::e5m2;
    default: return exec::rkind::integer;
  }
}

}  // namespace gpueq::check
