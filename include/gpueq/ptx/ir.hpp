// The PTX kernel IR: what the parser produces, the printer writes back, and the executor runs.
// It keeps every opcode modifier in source order (so nothing is lost and the printer
// round-trips), the PTX line and column of every instruction, and the CUDA source line from the
// last `.loc` before it. Names (registers, symbols, labels, modifiers, types) are interned in the
// module's name table: an instruction is a few small integers, which keeps the parser fast and
// comparisons cheap. The opcodes the parser accepts live in one table (ptx/opcodes.hpp), with
// what the engine does with each; an opcode outside it is a parse error, never a silent skip.
#pragma once

#include <gpueq/ptx/opcodes.hpp>
#include <gpueq/ptx/types.hpp>
#include <gpueq/support/diagnostics.hpp>
#include <gpueq/support/operations.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::ptx {

// ---------------------------------------------------------------------------------------------
// Interned names. Id 0 is the empty string. Views stay valid for the table's lifetime.
class name_table {
 public:
  name_table() { intern(""); }
  name_table(const name_table& o) { *this = o; }
  name_table& operator=(const name_table& o) {
    if (this == &o) return *this;
    storage_.clear();
    views_.clear();
    index_.clear();
    for (std::string_view v : o.views_) intern(v);
    return *this;
  }
  name_table(name_table&&) noexcept = default;
  name_table& operator=(name_table&&) noexcept = default;

  std::uint32_t intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return it->second;
    storage_.emplace_back(s);
    std::string_view v = storage_.back();
    auto id = static_cast<std::uint32_t>(views_.size());
    views_.push_back(v);
    index_.emplace(v, id);
    return id;
  }
  // The id of s if interned, else nullopt (does not add it).
  std::optional<std::uint32_t> find(std::string_view s) const {
    if (auto it = index_.find(s); it != index_.end()) return it->second;
    return std::nullopt;
  }
  std::string_view str(std::uint32_t id) const { return id < views_.size() ? views_[id] : std::string_view{}; }
  std::size_t size() const { return views_.size(); }

 private:
  std::deque<std::string> storage_;  // deque: element addresses are stable, so views stay valid
  std::vector<std::string_view> views_;
  boost::unordered_flat_map<std::string_view, std::uint32_t> index_;
};

// The spelling in the PTX source of a register's name in the IR. A register declared inside a
// `{ }` block is visible only there and shadows one of the same name outside (PTX's scoping), so
// the parser names it `name#B` (B numbers the function's blocks in order): every register then
// has one name in the whole function, which the decoder, the engine and the race reports key on.
// `#` cannot occur in a PTX identifier, so no source name collides with one of these, and the
// spelling is the part before the `#`. The printer writes spellings (its output parses back to
// the same IR); diagnostics that name a register use them, beside the PTX line.
inline std::string_view register_spelling(std::string_view ir_name) {
  return ir_name.substr(0, ir_name.find('#'));
}

// ---------------------------------------------------------------------------------------------
// Operands.
enum class operand_kind : std::uint8_t {
  reg,      // a declared register, e.g. %r1 (name interned with the %; `p#3` if block-scoped)
  special,  // a special register, e.g. %tid.x, %laneid, %lanemask_lt, or the constant WARP_SZ
  imm_int,  // integer immediate: value; `is_hex` keeps the spelling for printing
  imm_f32,  // 0fXXXXXXXX: value holds the 32 bits
  imm_f64,  // 0dXXXXXXXXXXXXXXXX (or a decimal literal): value holds the 64 bits of the double
  symbol,   // a variable, function or label name; value is an added offset (`sym+4`)
  address,  // [base+offset]: base is `base_kind`; name is the register or symbol; value offset
  vector,   // {a, b, c, d}: elems
  pair,     // d|p: elems (2)
  list,     // (a, b) in call: elems
  sink,     // _
};

enum class address_base : std::uint8_t { none, reg, symbol };

struct operand {
  operand_kind kind = operand_kind::sink;
  bool negated = false;  // !%p
  bool is_hex = false;   // integer immediate written in hex
  address_base base = address_base::none;
  std::uint32_t name = 0;  // interned register / symbol name
  std::int64_t value = 0;  // immediate value or bits; offset for symbol and address
  std::vector<operand> elems;

  operand() = default;
  operand(const operand&) = default;
  operand(operand&&) noexcept = default;
  operand& operator=(const operand&) = default;
  operand& operator=(operand&&) noexcept = default;
  friend bool operator==(const operand&, const operand&) = default;
};

// CUDA (or other high-level) source location from `.loc file line column`.
struct source_loc {
  std::uint32_t file = 0;  // .file index; 0 = none
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::uint32_t function_name = 0;  // interned `function_name` label, 0 if absent
  std::uint32_t inlined_file = 0, inlined_line = 0, inlined_column = 0;  // `inlined_at F L C`
  friend bool operator==(const source_loc&, const source_loc&) = default;
};

// What an idiom lifted into a `gpueq.lifted` pseudo-instruction computes, as a real function.
// One of the real operations of support/operations.hpp (name() spells it).
using real_function = support::real_op;

struct instruction {
  opcode op = opcode::ret;
  boost::container::small_vector<std::uint32_t, 6> mods;  // interned ".rn", ".f32", ... in order
  bool guarded = false, guard_negated = false;
  std::uint32_t guard = 0;  // interned predicate register of `@%p` / `@!%p` (its IR name)
  boost::container::small_vector<operand, 4> operands;
  std::uint32_t line = 0, column = 0;  // position in the PTX text
  source_loc loc;                      // CUDA source position (from .loc), file 0 if none
  bool inline_asm = false;             // between `// begin inline asm` and `// end inline asm`
  // For op == lifted: the real function, and the PTX lines of the instructions it replaced.
  real_function lifted_fn = real_function::exp;
  // For bra: the index of the instruction its label names (labels are scoped to `{ }` blocks, so
  // inline assembly pasted twice may define the same label twice; this is the resolved one).
  std::uint32_t target = no_target;
  static constexpr std::uint32_t no_target = 0xffffffffu;
  std::vector<std::uint32_t> lifted_lines;

  // noexcept moves: std::vector<instruction> then moves (not copies) when it grows.
  instruction() = default;
  instruction(const instruction&) = default;
  instruction(instruction&&) noexcept = default;
  instruction& operator=(const instruction&) = default;
  instruction& operator=(instruction&&) noexcept = default;

  // Same operation and operands; positions and source lines are not compared.
  bool same_as(const instruction& o) const {
    return op == o.op && mods == o.mods && guarded == o.guarded && guard_negated == o.guard_negated &&
           guard == o.guard && operands == o.operands && inline_asm == o.inline_asm && target == o.target &&
           (op != opcode::lifted || lifted_fn == o.lifted_fn);
  }
};

// ---------------------------------------------------------------------------------------------
// Declarations.
enum class state_space : std::uint8_t { reg, global, shared, local, constant, param, generic };

inline std::string_view name(state_space s) {
  constexpr std::string_view names[] = {".reg", ".global", ".shared", ".local", ".const", ".param", ""};
  return names[static_cast<std::size_t>(s)];
}

enum class linkage : std::uint8_t { none, visible, extern_, weak, common };

inline std::string_view name(linkage l) {
  constexpr std::string_view names[] = {"", ".visible", ".extern", ".weak", ".common"};
  return names[static_cast<std::size_t>(l)];
}

// `.reg .b32 %r<63>;` (a range of 63 registers %r0..%r62) or `.reg .f32 %f;` (one register).
struct reg_decl {
  std::uint32_t type = 0;   // interned ".b32"
  std::uint32_t vec = 0;    // 0, 2 or 4 (.v2/.v4 registers)
  std::uint32_t name = 0;   // interned "%r" (its IR name: `%r#3` in block 3, see register_spelling)
  std::uint32_t count = 0;  // range size
  bool range = false;
  friend bool operator==(const reg_decl&, const reg_decl&) = default;
};

// A variable in any state space: module globals, `.shared` arrays, `.local` depots, parameters.
struct variable {
  state_space space = state_space::global;
  linkage link = linkage::none;
  std::uint32_t align = 0;  // 0 = not given
  std::uint32_t vec = 0;    // 0, 2 or 4
  std::uint32_t type = 0;   // interned ".b8", ".u64", ...
  std::uint32_t name = 0;
  std::vector<std::uint64_t> dims;  // array dimensions; 0 for an unsized `[]`
  bool has_init = false;
  std::vector<operand> init;  // flattened initializer values
  // Parameter attributes: `.ptr .global .align 16`.
  bool ptr = false;
  state_space ptr_space = state_space::generic;
  std::uint32_t ptr_align = 0;
  std::uint32_t line = 0, column = 0;

  // Element count (product of dims; 1 for a scalar; 0 if unsized).
  std::uint64_t elements() const {
    std::uint64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  bool same_as(const variable& o) const {
    return space == o.space && link == o.link && align == o.align && vec == o.vec && type == o.type &&
           name == o.name && dims == o.dims && has_init == o.has_init && init == o.init && ptr == o.ptr &&
           ptr_space == o.ptr_space && ptr_align == o.ptr_align;
  }
};

// `.maxntid 256, 1, 1` and friends, kept as name and values.
struct performance_directive {
  std::uint32_t name = 0;  // interned ".maxntid"
  std::vector<std::uint64_t> values;
  friend bool operator==(const performance_directive&, const performance_directive&) = default;
};

// Order of a function body for printing: which item comes before which instruction.
enum class body_item_kind : std::uint8_t { instruction, label, reg_decl, variable, block_open, block_close, pragma, loc, prototype };
struct body_item {
  body_item_kind kind;
  std::uint32_t index;  // into instructions / label_names / regs / locals / pragmas / locs / prototypes
  friend bool operator==(const body_item&, const body_item&) = default;
};

struct function {
  bool entry = false;  // .entry (kernel) vs .func
  linkage link = linkage::none;
  std::uint32_t name = 0;
  std::vector<variable> params;
  std::vector<variable> returns;  // .func return parameters
  std::vector<performance_directive> directives;
  bool noreturn = false;
  bool has_body = false;  // false for prototypes (`.extern .func f(...);`)
  std::vector<reg_decl> regs;
  std::vector<variable> locals;  // .shared/.local/.param declared inside the body
  std::vector<instruction> instructions;
  std::vector<std::uint32_t> label_names;                               // in order of appearance
  // label -> instruction index (the first definition of a name; branches use instruction::target)
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> labels;
  std::vector<std::uint32_t> pragmas;                                   // interned pragma strings
  // `.callprototype (...) _ (...);` after a label (the signature of an indirect call's target),
  // interned verbatim from `.callprototype` to the `;`: printed back, never executed.
  std::vector<std::uint32_t> prototypes;
  std::vector<source_loc> locs;  // every `.loc` directive, in order (instructions copy the last one)
  std::vector<body_item> body;
  std::uint32_t line = 0, column = 0;

  // The index of the instruction a label names, or nullopt.
  std::optional<std::uint32_t> target(std::uint32_t label) const {
    if (auto it = labels.find(label); it != labels.end()) return it->second;
    return std::nullopt;
  }
};

// Everything a PTX file holds.
struct module {
  name_table names;
  std::string file;  // the path it was read from (for diagnostics)
  std::uint32_t version_major = 0, version_minor = 0;
  std::vector<std::uint32_t> target;  // interned "sm_80", "debug", ...
  std::uint32_t address_size = 64;
  bool has_address_size = false;
  boost::unordered_flat_map<std::uint32_t, std::string> files;  // .file index -> path
  std::vector<std::uint32_t> file_order;                         // .file indices in order
  std::vector<variable> globals;  // module-scope .global/.const/.shared (incl. .extern .shared)
  std::vector<function> functions;
  std::vector<std::string> sections;  // `.section` blocks, verbatim (debug info)
  // Module-level order for printing: (0 = global, 1 = function, 2 = section, 3 = file), index.
  std::vector<std::pair<std::uint8_t, std::uint32_t>> order;
  // What the parser accepted but doubts (an unknown .target or .version): file:line:column and a
  // reason, for the tool to print as `file:line:col: warning: reason`. Not part of the IR: printing
  // and ptx::difference ignore them.
  std::vector<support::diagnostic> warnings;

  std::string_view str(std::uint32_t id) const { return names.str(id); }
  const function* find_function(std::string_view n) const {
    for (auto& f : functions)
      if (str(f.name) == n) return &f;
    return nullptr;
  }
  std::size_t kernel_count() const {
    std::size_t n = 0;
    for (auto& f : functions) n += f.entry && f.has_body;
    return n;
  }
};

// Instruction helpers for consumers. `has(i, ".rn")`: does the instruction carry the modifier?
inline bool has_modifier(const module& m, const instruction& i, std::string_view mod) {
  for (auto id : i.mods)
    if (m.str(id) == mod) return true;
  return false;
}

// The last type modifier (.f32, .u64, .b16, .pred, .f16x2, ...): the operation type for most
// instructions (for cvt it is the source type; the destination type is the one before it).
inline std::string_view last_type(const module& m, const instruction& i) {
  for (auto it = i.mods.rbegin(); it != i.mods.rend(); ++it)
    if (std::string_view s = m.str(*it); is_type_spelling(s)) return s;
  return {};
}

}  // namespace gpueq::ptx
