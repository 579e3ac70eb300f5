// The PTX instruction table: one row per opcode the parser accepts, with its spelling, operand
// counts, family and status. The status says whether the execution engine runs the opcode or,
// if not, the one-line message a user gets; `gpueq parse` lists those instructions per kernel
// before anything runs (ptx/unsupported.hpp) and the engine stops with the same message when it
// reaches one, so the table is the single place that says what gpueq cannot execute.
// An opcode outside the table is a parse error, never a silent skip.
//
// It is plain constexpr data checked by static_asserts below (every row has a family, every
// unsupported row a message, spellings unique, ...). Boost.Hana is not used: the rows are
// homogeneous literal structs, which a constexpr array already checks at compile time; Hana's
// strength, heterogeneous compile-time sequences of types, has nothing to hold here.
#pragma once

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpueq::ptx {

// What kind of work an opcode does. Arithmetic opcodes that take both integer and float types
// (add, mul, min, ...) are integer_alu; the type modifier picks the float path at run time.
#define GPUEQ_PTX_OPCODE_FAMILIES(X)                                                                  \
  X(integer_alu, "integer ALU") X(floating_point, "floating point")                                   \
  X(compare_move_convert, "compare, select, move, convert") X(memory, "memory") X(atomic, "atomic")   \
  X(async_copy, "asynchronous copy") X(cta_barrier, "CTA barrier") X(warp_collective, "warp collective") \
  X(tensor_core, "tensor core") X(cluster, "thread-block cluster") X(control, "control flow")         \
  X(fence_misc, "fence and miscellaneous") X(mbarrier, "mbarrier") X(lifted_pseudo_op, "lifted pseudo-op")

enum class opcode_family : std::uint8_t {
#define GPUEQ_PTX_FAMILY_ENUM(e, s) e,
  GPUEQ_PTX_OPCODE_FAMILIES(GPUEQ_PTX_FAMILY_ENUM)
#undef GPUEQ_PTX_FAMILY_ENUM
};

inline constexpr std::string_view opcode_family_names[] = {
#define GPUEQ_PTX_FAMILY_NAME(e, s) s,
    GPUEQ_PTX_OPCODE_FAMILIES(GPUEQ_PTX_FAMILY_NAME)
#undef GPUEQ_PTX_FAMILY_NAME
};
inline constexpr std::size_t opcode_family_count = std::size(opcode_family_names);

constexpr std::string_view name(opcode_family f) { return opcode_family_names[static_cast<std::size_t>(f)]; }

// Supported: the engine executes the opcode (some modifier combinations may still stop a run
// with a message of their own, e.g. three-input min/max of a type other than .f32). Unsupported: the engine never executes
// it, and `unsupported` is what the user is told. An empty message means supported, so an
// unsupported row cannot lack its message.
//
// How the engine executes a supported opcode, written in the same column after `|`:
//   warp             a warp collective: every lane of the member mask arrives, then the
//                    instruction runs once for the warp (exec/semantics/collective.hpp)
//   warp_if_aligned  a warp collective only in its `.aligned` form
//   own_modifiers    the instruction spells modifiers the decoder's flag table does not know
//                    (shapes, layouts, completion mechanisms); its semantics check them, so the
//                    engine does not stop at an unknown modifier
// e.g. `supported | warp | own_modifiers`. The engine's dispatch reads these (exec/semantics/dispatch.hpp,
// generic_step), so a new collective is a row, not a case in a list.
enum class collective_kind : std::uint8_t { none, warp, warp_if_aligned };

struct opcode_status {
  std::string_view unsupported;
  collective_kind collective = collective_kind::none;
  bool own_modifiers = false;
  constexpr bool supported() const { return unsupported.empty(); }
};

struct opcode_trait {
  collective_kind collective = collective_kind::none;
  bool own_modifiers = false;
};
constexpr opcode_status operator|(opcode_status s, opcode_trait t) {
  if (t.collective != collective_kind::none) s.collective = t.collective;
  s.own_modifiers = s.own_modifiers || t.own_modifiers;
  return s;
}

// The names the table's status column is written with (see GPUEQ_PTX_OPCODES).
namespace opcode_rows {
inline constexpr opcode_status supported{};
constexpr opcode_status unsupported(std::string_view message) { return opcode_status{message}; }
inline constexpr opcode_trait warp{collective_kind::warp, false};
inline constexpr opcode_trait warp_if_aligned{collective_kind::warp_if_aligned, false};
inline constexpr opcode_trait own_modifiers{collective_kind::none, true};
}  // namespace opcode_rows

// The rows: (enumerator, PTX spelling, fewest operands, most operands, family, status). A
// spelling with dots (`bar.warp.sync`, `cp.async.wait_group`) is matched as the longest dotted
// prefix of the instruction; the remaining dotted parts are its modifiers. A destination pair
// `d|p` and a vector `{a, b}` count as one operand. The status is what exec/engine.hpp does with
// the opcode today: changing the engine means changing the row (tests/exec/opcode_table_test.cpp
// checks every supported row against the execution tests).
#define GPUEQ_PTX_OPCODES(X)                                                                                         \
  /* integer and bit arithmetic */                                                                                   \
  X(add, "add", 3, 3, integer_alu, supported)                                                                        \
  X(addc, "addc", 3, 3, integer_alu, supported)                                                                      \
  X(sub, "sub", 3, 3, integer_alu, supported)                                                                        \
  X(subc, "subc", 3, 3, integer_alu, supported)                                                                      \
  X(mul, "mul", 3, 3, integer_alu, supported)                                                                        \
  X(mad, "mad", 4, 4, integer_alu, supported)                                                                        \
  X(madc, "madc", 4, 4, integer_alu, supported)                                                                      \
  X(mul24, "mul24", 3, 3, integer_alu, supported)                                                                    \
  X(mad24, "mad24", 4, 4, integer_alu, supported)                                                                    \
  X(sad, "sad", 4, 4, integer_alu, supported)                                                                        \
  X(div, "div", 3, 3, integer_alu, supported)                                                                        \
  X(rem, "rem", 3, 3, integer_alu, supported)                                                                        \
  X(abs, "abs", 2, 2, integer_alu, supported)                                                                        \
  X(neg, "neg", 2, 2, integer_alu, supported)                                                                        \
  X(min, "min", 3, 4, integer_alu, supported)                                                                        \
  X(max, "max", 3, 4, integer_alu, supported)                                                                        \
  X(popc, "popc", 2, 2, integer_alu, supported)                                                                      \
  X(clz, "clz", 2, 2, integer_alu, supported)                                                                        \
  X(bfind, "bfind", 2, 2, integer_alu, supported)                                                                    \
  X(fns, "fns", 4, 4, integer_alu, supported)                                                                        \
  X(brev, "brev", 2, 2, integer_alu, supported)                                                                      \
  X(bfe, "bfe", 4, 4, integer_alu, supported)                                                                        \
  X(bfi, "bfi", 5, 5, integer_alu, supported)                                                                        \
  X(prmt, "prmt", 3, 4, integer_alu, supported)                                                                      \
  X(dp4a, "dp4a", 4, 4, integer_alu, supported)                                                                      \
  X(dp2a, "dp2a", 4, 4, integer_alu, supported)                                                                      \
  X(bmsk, "bmsk", 3, 3, integer_alu, supported)                                                                      \
  X(szext, "szext", 3, 3, integer_alu, supported)                                                                    \
  X(and_, "and", 3, 3, integer_alu, supported)                                                                       \
  X(or_, "or", 3, 3, integer_alu, supported)                                                                         \
  X(xor_, "xor", 3, 3, integer_alu, supported)                                                                       \
  X(not_, "not", 2, 2, integer_alu, supported)                                                                       \
  X(cnot, "cnot", 2, 2, integer_alu, supported)                                                                      \
  X(lop3, "lop3", 5, 6, integer_alu, supported)                                                                      \
  X(shf, "shf", 4, 4, integer_alu, supported)                                                                        \
  X(shl, "shl", 3, 3, integer_alu, supported)                                                                        \
  X(shr, "shr", 3, 3, integer_alu, supported)                                                                        \
  /* floating point */                                                                                               \
  /* testp spells its test (.finite, .normal, ...) as a modifier no flag stands for */                               \
  X(testp, "testp", 2, 2, floating_point, supported | own_modifiers)                                                 \
  X(copysign, "copysign", 3, 3, floating_point, supported)                                                           \
  X(fma, "fma", 4, 4, floating_point, supported)                                                                     \
  X(rcp, "rcp", 2, 2, floating_point, supported)                                                                     \
  X(sqrt, "sqrt", 2, 2, floating_point, supported)                                                                   \
  X(rsqrt, "rsqrt", 2, 2, floating_point, supported)                                                                 \
  X(sin, "sin", 2, 2, floating_point, supported)                                                                     \
  X(cos, "cos", 2, 2, floating_point, supported)                                                                     \
  X(lg2, "lg2", 2, 2, floating_point, supported)                                                                     \
  X(ex2, "ex2", 2, 2, floating_point, supported)                                                                     \
  X(tanh, "tanh", 2, 2, floating_point, supported)                                                                   \
  /* comparison, selection, moves, conversion */                                                                     \
  X(set, "set", 3, 4, compare_move_convert, supported)                                                               \
  X(setp, "setp", 3, 4, compare_move_convert, supported)                                                             \
  X(selp, "selp", 4, 4, compare_move_convert, supported)                                                             \
  X(slct, "slct", 4, 4, compare_move_convert, supported)                                                             \
  X(mov, "mov", 2, 2, compare_move_convert, supported)                                                               \
  X(cvt, "cvt", 2, 4, compare_move_convert, supported)                                                               \
  X(cvta, "cvta", 2, 2, memory, supported) /* an address: see computes_data */                                      \
  /* isspacep spells .param::entry, a modifier no flag stands for */                                                 \
  X(isspacep, "isspacep", 2, 2, compare_move_convert, supported | own_modifiers)                                     \
  /* memory */                                                                                                       \
  X(ld, "ld", 2, 3, memory, supported)                                                                               \
  X(ldu, "ldu", 2, 2, memory, supported)                                                                             \
  X(st, "st", 2, 3, memory, supported)                                                                               \
  /* prefetch (a cache hint, .L1/.L2 or .tensormap) has no effect on values */                                       \
  X(prefetch, "prefetch", 1, 1, memory, supported | own_modifiers)                                                   \
  X(prefetchu, "prefetchu", 1, 1, memory, supported | own_modifiers)                                                 \
  X(atom, "atom", 3, 5, atomic, supported)                                                                           \
  X(red, "red", 2, 4, atomic, supported)                                                                             \
  X(cp_async, "cp.async", 3, 5, async_copy, supported | own_modifiers)                                               \
  X(cp_async_commit_group, "cp.async.commit_group", 0, 0, async_copy, supported)                                     \
  X(cp_async_wait_group, "cp.async.wait_group", 1, 1, async_copy, supported)                                         \
  X(cp_async_wait_all, "cp.async.wait_all", 0, 0, async_copy, supported)                                             \
  X(cp_async_mbarrier_arrive, "cp.async.mbarrier.arrive", 1, 1, async_copy, supported | own_modifiers)             \
  X(cp_async_bulk, "cp.async.bulk", 3, 5, async_copy, supported | own_modifiers)                                    \
  X(cp_async_bulk_tensor, "cp.async.bulk.tensor", 2, 6, async_copy, supported | own_modifiers)                      \
  X(cp_reduce_async_bulk, "cp.reduce.async.bulk", 2, 5, async_copy, supported | own_modifiers)                      \
  X(cp_async_bulk_commit_group, "cp.async.bulk.commit_group", 0, 0, async_copy, supported | own_modifiers)          \
  X(cp_async_bulk_wait_group, "cp.async.bulk.wait_group", 1, 1, async_copy, supported | own_modifiers)              \
  X(tensormap_replace, "tensormap.replace", 2, 3, memory, supported | own_modifiers)                                \
  X(tensormap_cp_fenceproxy, "tensormap.cp_fenceproxy", 3, 3, memory, supported | warp_if_aligned | own_modifiers)  \
  X(ldmatrix, "ldmatrix", 2, 2, tensor_core, supported | warp | own_modifiers)                                       \
  X(stmatrix, "stmatrix", 2, 2, tensor_core, supported | warp)                                                       \
  X(movmatrix, "movmatrix", 2, 2, tensor_core, supported | warp)                                                     \
  X(wmma_load, "wmma.load", 2, 3, tensor_core, supported | warp | own_modifiers)                                     \
  X(wmma_store, "wmma.store", 2, 3, tensor_core, supported | warp | own_modifiers)                                   \
  X(wmma_mma, "wmma.mma", 4, 4, tensor_core, supported | warp | own_modifiers)                                       \
  X(mma, "mma", 4, 6, tensor_core, supported | warp | own_modifiers)                                                 \
  X(wgmma_fence, "wgmma.fence", 0, 0, tensor_core, supported | warp)                                                 \
  X(wgmma_commit_group, "wgmma.commit_group", 0, 0, tensor_core, supported | warp)                                   \
  X(wgmma_wait_group, "wgmma.wait_group", 1, 1, tensor_core, supported | warp)                                       \
  X(wgmma_mma_async, "wgmma.mma_async", 4, 9, tensor_core, supported | warp | own_modifiers)                         \
  X(alloca_, "alloca", 2, 3, memory, unsupported("alloca (dynamic stack allocation) is not modelled yet"))           \
  X(stacksave, "stacksave", 1, 1, memory, unsupported("stacksave (dynamic stack allocation) is not modelled yet"))   \
  X(stackrestore, "stackrestore", 1, 1, memory,                                                                      \
    unsupported("stackrestore (dynamic stack allocation) is not modelled yet"))                                      \
  X(discard, "discard", 2, 2, memory,                                                                                \
    unsupported("discard (drop a cache line without writing it back) is not modelled yet"))                          \
  /* applypriority (an L2 eviction priority for a line) has no effect on values either; createpolicy  */           \
  /* makes an L2 cache policy, opaque bits that loads and stores with .L2::cache_hint take as a hint */             \
  /* (the semantics in exec/semantics/dispatch.hpp, `execute`) */                                                    \
  X(applypriority, "applypriority", 2, 2, memory, supported | own_modifiers)                                         \
  X(createpolicy, "createpolicy", 1, 4, memory, supported | own_modifiers)                                           \
  X(mapa, "mapa", 3, 3, cluster, supported)                                                                          \
  X(getctarank, "getctarank", 2, 2, cluster, supported)                                                              \
  /* control flow */                                                                                                 \
  X(bra, "bra", 1, 1, control, supported)                                                                            \
  X(brx_idx, "brx.idx", 2, 2, control,                                                                               \
    unsupported("brx.idx (indirect branch through a label table) is not modelled yet"))                              \
  X(call, "call", 1, 4, control, supported)                                                                          \
  X(ret, "ret", 0, 0, control, supported)                                                                            \
  X(exit, "exit", 0, 0, control, supported)                                                                          \
  X(trap, "trap", 0, 0, control, supported)                                                                          \
  X(brkpt, "brkpt", 0, 0, control, supported)                                                                        \
  X(nanosleep, "nanosleep", 1, 1, fence_misc, supported)                                                             \
  X(pmevent, "pmevent", 1, 1, fence_misc, supported)                                                                 \
  /* synchronization and warp collectives */                                                                         \
  X(bar, "bar", 1, 4, cta_barrier, supported)                                                                        \
  X(barrier, "barrier", 1, 4, cta_barrier, supported)                                                                \
  X(bar_warp_sync, "bar.warp.sync", 1, 1, warp_collective, supported | warp)                                         \
  X(barrier_cluster, "barrier.cluster", 0, 0, cluster, supported | own_modifiers)                                    \
  X(membar, "membar", 0, 0, fence_misc, supported)                                                                   \
  X(fence, "fence", 0, 2, fence_misc, supported | own_modifiers)                                                     \
  X(shfl, "shfl", 4, 5, warp_collective, supported | warp)                                                           \
  X(vote, "vote", 2, 3, warp_collective, supported | warp)                                                           \
  X(match, "match", 3, 4, warp_collective, supported | warp)                                                         \
  X(activemask, "activemask", 1, 1, warp_collective, supported)                                                      \
  X(redux, "redux", 3, 3, warp_collective, supported | warp)                                                         \
  X(elect, "elect", 2, 2, warp_collective, supported | warp)                                                         \
  X(mbarrier_init, "mbarrier.init", 2, 2, mbarrier, supported)                                                       \
  X(mbarrier_inval, "mbarrier.inval", 1, 1, mbarrier, supported)                                                     \
  X(mbarrier_arrive, "mbarrier.arrive", 1, 3, mbarrier, supported)                                                   \
  X(mbarrier_arrive_drop, "mbarrier.arrive_drop", 1, 3, mbarrier, supported)                                         \
  X(mbarrier_test_wait, "mbarrier.test_wait", 3, 3, mbarrier, supported)                                             \
  X(mbarrier_try_wait, "mbarrier.try_wait", 3, 4, mbarrier, supported)                                               \
  X(mbarrier_pending_count, "mbarrier.pending_count", 2, 2, mbarrier, supported)                                     \
  X(mbarrier_expect_tx, "mbarrier.expect_tx", 2, 2, mbarrier, supported)                                             \
  X(mbarrier_complete_tx, "mbarrier.complete_tx", 2, 2, mbarrier, supported)                                         \
  X(setmaxnreg, "setmaxnreg", 1, 1, warp_collective, supported | warp)                                               \
  X(griddepcontrol, "griddepcontrol", 0, 0, fence_misc, supported | own_modifiers)                                   \
  /* pseudo-operations made by the idiom lifting pass (never parsed from PTX) */                                     \
  X(lifted, "gpueq.lifted", 2, 4, lifted_pseudo_op, supported)

enum class opcode : std::uint16_t {
#define GPUEQ_PTX_ENUM(e, s, lo, hi, fam, st) e,
  GPUEQ_PTX_OPCODES(GPUEQ_PTX_ENUM)
#undef GPUEQ_PTX_ENUM
};

struct opcode_info {
  std::string_view name;
  std::uint8_t min_operands, max_operands;
  opcode_family family;
  opcode_status status;
};

inline constexpr opcode_info opcode_table[] = {
#define GPUEQ_PTX_INFO(e, s, lo, hi, fam, st) \
  {s, lo, hi, opcode_family::fam, [] { using namespace opcode_rows; return opcode_status(st); }()},
    GPUEQ_PTX_OPCODES(GPUEQ_PTX_INFO)
#undef GPUEQ_PTX_INFO
};

inline constexpr std::size_t opcode_count = std::size(opcode_table);

constexpr const opcode_info& info(opcode op) { return opcode_table[static_cast<std::size_t>(op)]; }
constexpr std::string_view name(opcode op) { return info(op).name; }
constexpr opcode_family family(opcode op) { return info(op).family; }
// Does the execution engine run this opcode? If not, unsupported_message says why, in the
// words the engine's error and `gpueq parse` use.
constexpr bool is_supported(opcode op) { return info(op).status.supported(); }
constexpr std::string_view unsupported_message(opcode op) { return info(op).status.unsupported; }
// How the engine executes it (the traits of the status column).
constexpr collective_kind collective(opcode op) { return info(op).status.collective; }
constexpr bool checks_own_modifiers(opcode op) { return info(op).status.own_modifiers; }
// A data instruction: a supported opcode whose result is a function of its operands' values and
// nothing else (the integer, floating-point and compare/select/move/convert families and the
// lifted functions). An undefined operand makes its result undefined instead of stopping the run;
// at any other instruction (memory, atomics, barriers, collectives, tensor cores, control) an
// undefined operand is the uninitialized error (exec/engine.hpp, undefined_read). cvta is in the
// memory family for this reason: its result is an address.
constexpr bool computes_data(opcode op) {
  switch (family(op)) {
    case opcode_family::integer_alu: case opcode_family::floating_point: case opcode_family::compare_move_convert:
    case opcode_family::lifted_pseudo_op:
      return is_supported(op);
    default: return false;
  }
}

// ---- what the table guarantees, checked while compiling ------------------------------------
namespace detail {
constexpr bool opcode_rows_well_formed() {
  for (std::size_t i = 0; i < opcode_count; ++i) {
    const opcode_info& r = opcode_table[i];
    if (r.name.empty() || r.min_operands > r.max_operands) return false;
    if (static_cast<std::size_t>(r.family) >= opcode_family_count) return false;
    // A message is one line that names what is missing: it is printed after "unsupported: ".
    // Execution traits belong to rows the engine executes.
    if (!r.status.supported() && (r.status.collective != collective_kind::none || r.status.own_modifiers)) return false;
    if (!r.status.supported() && (r.status.unsupported.find('\n') != std::string_view::npos ||
                                  r.status.unsupported.find("not modelled") == std::string_view::npos))
      return false;
  }
  return true;
}
constexpr bool opcode_spellings_unique() {
  for (std::size_t i = 0; i < opcode_count; ++i)
    for (std::size_t j = i + 1; j < opcode_count; ++j)
      if (opcode_table[i].name == opcode_table[j].name) return false;
  return true;
}
constexpr bool every_family_used() {
  for (std::size_t f = 0; f < opcode_family_count; ++f)
    if (std::none_of(std::begin(opcode_table), std::end(opcode_table),
                     [&](const opcode_info& r) { return static_cast<std::size_t>(r.family) == f; }))
      return false;
  return true;
}
// How many enumerators the enum has, counted from the macro on its own (not from the table).
inline constexpr std::size_t opcode_enumerators = 0
#define GPUEQ_PTX_COUNT(e, s, lo, hi, fam, st) +1
    GPUEQ_PTX_OPCODES(GPUEQ_PTX_COUNT)
#undef GPUEQ_PTX_COUNT
    ;
}  // namespace detail

static_assert(detail::opcode_enumerators == opcode_count, "one table row per opcode enumerator");
static_assert(static_cast<std::size_t>(opcode::lifted) + 1 == opcode_count, "the lifted pseudo-op is the last row");
static_assert(detail::opcode_rows_well_formed(),
              "every row needs a family, operand counts lo <= hi, and an unsupported row a one-line "
              "'not modelled' message");
static_assert(detail::opcode_spellings_unique(), "two rows spell the same opcode");
static_assert(detail::every_family_used(), "a family no opcode belongs to");
static_assert(family(opcode::lifted) == opcode_family::lifted_pseudo_op && is_supported(opcode::lifted),
              "the lifting pass's pseudo-op is executed by the engine");
static_assert(is_supported(opcode::mbarrier_init) && !is_supported(opcode::alloca_) &&
                  unsupported_message(opcode::alloca_).starts_with("alloca "),
              "the status column reaches the table");
static_assert(collective(opcode::shfl) == collective_kind::warp && collective(opcode::add) == collective_kind::none &&
                  checks_own_modifiers(opcode::mma) && !checks_own_modifiers(opcode::add) &&
                  computes_data(opcode::fma) && !computes_data(opcode::cvta) && !computes_data(opcode::ld),
              "the execution traits reach the table");

// The opcode spelled exactly `s` (dots included), or nullopt. Pseudo-opcodes are not found.
inline std::optional<opcode> find_opcode(std::string_view s) {
  static const boost::unordered_flat_map<std::string_view, opcode> table = [] {
    boost::unordered_flat_map<std::string_view, opcode> t;
    for (std::size_t i = 0; i < opcode_count; ++i)
      if (opcode_table[i].family != opcode_family::lifted_pseudo_op)
        t.emplace(opcode_table[i].name, static_cast<opcode>(i));
    return t;
  }();
  if (auto it = table.find(s); it != table.end()) return it->second;
  return std::nullopt;
}

// The opcode named by the longest dotted prefix of `text` (`cp.async.ca.shared.global` ->
// cp_async) and where its modifiers begin, or nullopt.
struct opcode_match {
  opcode op;
  std::size_t modifiers_at;  // index of the '.' that starts the first modifier, or text.size()
};
inline std::optional<opcode_match> match_opcode(std::string_view text) {
  std::size_t dots[5];
  std::size_t nd = 0;
  for (std::size_t i = 0; i < text.size() && nd < 5; ++i)
    if (text[i] == '.') dots[nd++] = i;
  // Candidates: the whole text when it has at most 4 dots, then each prefix before a dot.
  if (nd < 5)
    if (auto op = find_opcode(text)) return opcode_match{*op, text.size()};
  for (std::size_t k = std::min<std::size_t>(nd, 4); k-- > 0;)
    if (auto op = find_opcode(text.substr(0, dots[k]))) return opcode_match{*op, dots[k]};
  return std::nullopt;
}

}  // namespace gpueq::ptx
