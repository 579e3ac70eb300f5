// The instructions of a kernel that gpueq cannot execute, found from the opcode table
// (ptx/opcodes.hpp) before anything runs. Without this a user learns it from the first run that
// reaches one, one instruction at a time; `gpueq parse` prints the whole list per kernel.
#pragma once

#include <gpueq/ptx/inline.hpp>
#include <gpueq/ptx/ir.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpueq::ptx {

// One unsupported opcode of a function: how often it occurs, where first, and the table's message
// (the same words the engine's error uses when a run reaches it).
struct unsupported_use {
  opcode op = opcode::ret;
  std::uint32_t count = 0;
  std::uint32_t first_line = 0;  // PTX line of the first occurrence
  std::string_view message;      // unsupported_message(op), or call_not_inlined_message
};

// What `gpueq parse` says of a call that exec::decode cannot inline (ptx/inline.hpp).
inline constexpr std::string_view call_not_inlined_message =
    "call of a function without a body (an .extern function such as printf's vprintf) or through a function pointer: "
    "gpueq runs only the device functions it can inline";

// Can exec::decode inline this call: a direct call of a function with a body in `m`?
inline bool inlinable_call(const module& m, const instruction& ins) {
  const function* g = callee_of(m, ins);
  return g && g->has_body;
}

// Per opcode, in order of first occurrence; empty when the engine can execute every instruction.
// Guarded instructions count too: whether their guard holds is known only when the kernel runs.
// The answer depends on opcodes alone, except for `call`: a direct call of a function with a body
// in `m` is inlined and runs, an indirect call or one of a function without a body does not.
// (Recursion deeper than ptx::max_call_depth is found only by a run that goes that deep.)
inline std::vector<unsupported_use> unsupported_instructions(const module& m, const function& f) {
  std::vector<unsupported_use> out;
  std::uint32_t slot[opcode_count];  // index into out + 1, 0 = not seen
  for (auto& s : slot) s = 0;
  for (const instruction& ins : f.instructions) {
    const bool call_out = ins.op == opcode::call && !inlinable_call(m, ins);
    if (is_supported(ins.op) && !call_out) continue;
    auto k = static_cast<std::size_t>(ins.op);
    if (!slot[k]) {
      out.push_back({ins.op, 0, ins.line, call_out ? call_not_inlined_message : unsupported_message(ins.op)});
      slot[k] = static_cast<std::uint32_t>(out.size());
    }
    ++out[slot[k] - 1].count;
  }
  return out;
}

}  // namespace gpueq::ptx
