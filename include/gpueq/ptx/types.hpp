// PTX type spellings, defined once: the parser's type modifiers, the engine's value types
// (exec::vtype, the executed rows) and the operation-type lookup (ptx::last_type) derive from
// these lists. A spelling is "." followed by the enumerator.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpueq::ptx {

// The types the engine executes, in the order of exec::vtype (after its `none`).
#define GPUEQ_PTX_EXECUTED_TYPES(X) \
  X(pred) X(b8) X(b16) X(b32) X(b64) X(b128) X(u8) X(u16) X(u32) X(u64) X(s8) X(s16) X(s32) X(s64) \
  X(f16) X(f16x2) X(bf16) X(bf16x2) X(f32) X(f64) X(tf32) X(e4m3) X(e5m2) X(e4m3x2) X(e5m2x2)
// Types the parser knows as modifiers that no executed operation takes as its own type.
#define GPUEQ_PTX_OTHER_TYPES(X) X(s4) X(u4) X(b1)

#define GPUEQ_PTX_TYPE_SPELLING(e) "." #e,
inline constexpr std::string_view executed_type_spellings[] = {GPUEQ_PTX_EXECUTED_TYPES(GPUEQ_PTX_TYPE_SPELLING)};
inline constexpr std::string_view type_spellings[] = {GPUEQ_PTX_EXECUTED_TYPES(GPUEQ_PTX_TYPE_SPELLING)
                                                          GPUEQ_PTX_OTHER_TYPES(GPUEQ_PTX_TYPE_SPELLING)};
#undef GPUEQ_PTX_TYPE_SPELLING

// Whether s spells a PTX type (".f32", ".e4m3", ...).
constexpr bool is_type_spelling(std::string_view s) {
  for (auto t : type_spellings)
    if (t == s) return true;
  return false;
}

}  // namespace gpueq::ptx
