// The verdict of a check, in one vocabulary. Each class has one spelling, used alike in a pair
// spec's "expect", the text output, JSON and SARIF, and one exit code; a run error of the engine
// maps to exactly one class. The classes are what users must tell apart: a proof, a difference,
// a defect of a kernel (race, deadlock or barrier misuse, uninitialized read, out-of-bounds or
// misaligned access, trap), something gpueq could not decide or does not model, and problems with
// the input or the resources.
//
// Precedence when a check finds several things (check::screen in check/driver.hpp; every
// finding is reported, the verdict is the first by this order):
//   1. an intra-CTA race found before a side's run stopped: a racing read of a location another
//      thread writes later looks uninitialized, and a schedule-dependent value can reach an
//      address, so the race explains what follows;
//   2. a run error (the side's run stopped there, so nothing after it is known);
//   3. a barrier problem (not well-synchronized: count mismatch, unsafe recycling, a generation
//      completed by arrivals only, barrier divergence under race::options::strict_barriers);
//   4. an inter-CTA conflict;
//   5. the comparison: not-equivalent, unknown or equivalent.
// The reference side's findings come before the candidate's within each step.
#pragma once

#include <gpueq/exec/errors.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpueq::check {

#define GPUEQ_CHECK_VERDICTS(X)                                                                  \
  /* enumerator, spelling, exit code (gpueq check) */                                            \
  X(equivalent, "equivalent", 0)                                                                 \
  X(different, "not-equivalent", 1)                                                              \
  X(race, "race", 2)                                                                             \
  X(deadlock, "deadlock", 2) /* deadlock or barrier misuse */                                    \
  X(uninitialized, "uninitialized-read", 2)                                                      \
  X(out_of_bounds, "out-of-bounds", 2) /* out of bounds or misaligned */                         \
  X(trap, "trap", 2)                                                                             \
  X(unknown, "unknown", 3)                                                                       \
  X(unsupported, "unsupported", 3)                                                               \
  X(not_structured, "not-structured", 3)                                                         \
  X(bad_input, "bad-input", 4)                                                                   \
  X(resource_limit, "resource-limit", 5)

enum class verdict : std::uint8_t {
#define GPUEQ_CHECK_VERDICT_ENUM(e, s, code) e,
  GPUEQ_CHECK_VERDICTS(GPUEQ_CHECK_VERDICT_ENUM)
#undef GPUEQ_CHECK_VERDICT_ENUM
};

struct verdict_info {
  std::string_view name;
  int exit_code;
};

inline constexpr verdict_info verdict_table[] = {
#define GPUEQ_CHECK_VERDICT_INFO(e, s, code) {s, code},
    GPUEQ_CHECK_VERDICTS(GPUEQ_CHECK_VERDICT_INFO)
#undef GPUEQ_CHECK_VERDICT_INFO
};
inline constexpr std::size_t verdict_count = std::size(verdict_table);
static_assert(verdict_count == static_cast<std::size_t>(verdict::resource_limit) + 1, "one row per verdict");

constexpr std::string_view name(verdict v) { return verdict_table[static_cast<std::size_t>(v)].name; }
constexpr int exit_code(verdict v) { return verdict_table[static_cast<std::size_t>(v)].exit_code; }

// The verdict spelled `s`, as a spec's "expect" or `--expect` writes it. "different" is the
// spelling specs used before the vocabulary was one (accepted, read as not-equivalent).
inline std::optional<verdict> verdict_named(std::string_view s) {
  for (std::size_t i = 0; i < verdict_count; ++i)
    if (verdict_table[i].name == s) return static_cast<verdict>(i);
  if (s == "different") return verdict::different;
  return std::nullopt;
}

// A spec's "expect" is a verdict: a check meets it when it gives that verdict.
constexpr bool meets(verdict v, verdict expected) { return v == expected; }

// The verdict a run error of the engine becomes.
inline verdict verdict_of(exec::error_kind k) {
  switch (k) {
    case exec::error_kind::deadlock: case exec::error_kind::barrier: return verdict::deadlock;
    case exec::error_kind::out_of_bounds: case exec::error_kind::misaligned: return verdict::out_of_bounds;
    case exec::error_kind::uninitialized: return verdict::uninitialized;
    case exec::error_kind::trap: return verdict::trap;
    case exec::error_kind::unsupported: return verdict::unsupported;
    case exec::error_kind::not_structured: return verdict::not_structured;
    case exec::error_kind::limit: return verdict::resource_limit;
    case exec::error_kind::domain: return verdict::unknown;
  }
  return verdict::unknown;
}

}  // namespace gpueq::check
