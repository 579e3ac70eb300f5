// What can stop a run of one CTA, with where it happened. Every error names the thread (as
// (x,y,z) and warp/lane), the PTX instruction (file:line) and, when the PTX has line info, the
// CUDA line. A run either completes or stops at its first error: later instructions of a run
// that went wrong prove nothing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::exec {

enum class error_kind : std::uint8_t {
  deadlock,        // no thread can move, some have not exited
  out_of_bounds,   // an access outside every region, or past the end of one
  misaligned,      // an access not aligned to its width
  uninitialized,   // a read of memory or a register never written (or output-only memory)
  not_structured,  // control flow, an address or a barrier operand depends on symbolic data
  unsupported,     // an instruction or form gpueq does not model (never skipped silently)
  barrier,         // barrier misuse: count mismatch within a generation, over-subscription, ...
  domain,          // a value the domain cannot form (exp in exact rationals, NaN constants)
  trap,            // trap / brkpt executed
  limit,           // the step limit was reached (an unbounded loop?)
};

inline std::string_view name(error_kind k) {
  constexpr std::string_view names[] = {"deadlock", "out-of-bounds", "misaligned", "uninitialized", "not a structured CTA",
                                        "unsupported", "barrier", "domain", "trap", "step limit"};
  return names[static_cast<std::size_t>(k)];
}

struct run_error {
  error_kind kind = error_kind::unsupported;
  std::uint32_t thread = 0;
  std::uint32_t instruction = 0;
  bool has_instruction = false;
  std::string message;  // complete, with location: "kernel.ptx:42 (kernel.cu:7), thread (3,0,0): ..."
};

// Thrown inside the engine; run() turns it into run_result::error.
struct run_failure : std::runtime_error {
  run_error error;
  explicit run_failure(run_error e) : std::runtime_error(e.message), error(std::move(e)) {}
};

}  // namespace gpueq::exec
