// The values the engine moves around: PTX scalar types, and the cell that one register or one
// stored memory value holds. A cell is concrete bits (addresses, loop counters, predicates,
// constants), or a value of the run's value domain (a float or an integer *datum*: a term in a
// symbolic run, a double in the float32 run, a rational in the exact run), or two 16-bit domain
// values packed in 32 bits (f16x2/bf16x2 registers, what ldmatrix and mma exchange; or two 8-bit
// values packed in 16 bits, e4m3x2/e5m2x2), or a
// comparison of two domain values that is not decided (a symbolic predicate; only `selp` may
// consume it, as max/min), or no defined value at all (`empty`, see below). Keeping the tag explicit is what lets one engine be concrete where
// PTX control flow needs it and symbolic where the data is.
#pragma once

#include <gpueq/ptx/types.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace gpueq::exec {

// PTX scalar types the engine executes (the instruction's type modifier): none, then the rows of
// GPUEQ_PTX_EXECUTED_TYPES (ptx/types.hpp), which spells them.
enum class vtype : std::uint8_t {
  none,
#define GPUEQ_X(e) e,
  GPUEQ_PTX_EXECUTED_TYPES(GPUEQ_X)
#undef GPUEQ_X
};

inline std::optional<vtype> vtype_of(std::string_view s) {
  for (std::size_t i = 0; i < std::size(ptx::executed_type_spellings); ++i)
    if (ptx::executed_type_spellings[i] == s) return static_cast<vtype>(i + 1);
  return std::nullopt;
}

constexpr std::uint32_t bytes(vtype t) {
  switch (t) {
    case vtype::none: return 0;
    case vtype::pred: return 1;
    case vtype::b8: case vtype::u8: case vtype::s8: case vtype::e4m3: case vtype::e5m2: return 1;
    case vtype::b16: case vtype::u16: case vtype::s16: case vtype::f16: case vtype::bf16: case vtype::e4m3x2:
    case vtype::e5m2x2: return 2;
    case vtype::b32: case vtype::u32: case vtype::s32: case vtype::f32: case vtype::f16x2: case vtype::bf16x2:
    case vtype::tf32: return 4;
    case vtype::b64: case vtype::u64: case vtype::s64: case vtype::f64: return 8;
    case vtype::b128: return 16;
  }
  return 0;
}
constexpr bool is_float(vtype t) {
  return t == vtype::f16 || t == vtype::bf16 || t == vtype::f32 || t == vtype::f64 || t == vtype::f16x2 ||
         t == vtype::bf16x2 || t == vtype::tf32 || t == vtype::e4m3 || t == vtype::e5m2 || t == vtype::e4m3x2 ||
         t == vtype::e5m2x2;
}
constexpr bool is_signed(vtype t) { return t == vtype::s8 || t == vtype::s16 || t == vtype::s32 || t == vtype::s64; }
// Two values of a format in one register: f16x2/bf16x2 (16-bit halves of a .b32), e4m3x2/e5m2x2 (8-bit
// halves of a .b16).
constexpr bool is_packed(vtype t) {
  return t == vtype::f16x2 || t == vtype::bf16x2 || t == vtype::e4m3x2 || t == vtype::e5m2x2;
}

// What a domain value stands for: a float of a format, or an exact integer datum (integer tensor
// data such as counts and indices stored as data; PTX integer arithmetic on such data is taken
// as exact, i.e. we assume it does not overflow, and say so in the README). e4m3 and e5m2 are the
// 8-bit formats of sm_89/sm_90 (OCP FP8: e4m3 the "FN" variant without infinities, e5m2 IEEE-like).
enum class rkind : std::uint8_t { f16, bf16, f32, f64, integer, e4m3, e5m2 };

constexpr std::uint32_t bytes(rkind k) {
  switch (k) {
    case rkind::f16: case rkind::bf16: return 2;
    case rkind::f32: return 4;
    case rkind::f64: return 8;
    case rkind::integer: return 8;
    case rkind::e4m3: case rkind::e5m2: return 1;
  }
  return 0;
}
constexpr std::optional<rkind> rkind_of(vtype t) {
  switch (t) {
    case vtype::f16: case vtype::f16x2: return rkind::f16;
    case vtype::bf16: case vtype::bf16x2: return rkind::bf16;
    case vtype::f32: case vtype::tf32: return rkind::f32;
    case vtype::f64: return rkind::f64;
    case vtype::e4m3: case vtype::e4m3x2: return rkind::e4m3;
    case vtype::e5m2: case vtype::e5m2x2: return rkind::e5m2;
    default: return std::nullopt;
  }
}

// Comparison operators of setp/set/slct (ordered, unordered, num/nan, and the integer ones),
// spelled "." followed by the enumerator.
#define GPUEQ_EXEC_COMPARISONS(X) \
  X(eq) X(ne) X(lt) X(le) X(gt) X(ge) X(lo) X(ls) X(hi) X(hs) X(equ) X(neu) X(ltu) X(leu) X(gtu) X(geu) X(num) X(nan)
// Rounding modes of float arithmetic and conversions (the integer-rounding ones of cvt too),
// spelled "." followed by the enumerator; `none` is the absence of one.
#define GPUEQ_EXEC_ROUNDINGS(X) X(rn) X(rz) X(rm) X(rp) X(rna) X(rni) X(rzi) X(rmi) X(rpi)

#define GPUEQ_X(e) e,
enum class cmp_op : std::uint8_t { GPUEQ_EXEC_COMPARISONS(GPUEQ_X) };
enum class rounding : std::uint8_t { none, GPUEQ_EXEC_ROUNDINGS(GPUEQ_X) };
#undef GPUEQ_X
#define GPUEQ_X(e) "." #e,
inline constexpr std::string_view cmp_spellings[] = {GPUEQ_EXEC_COMPARISONS(GPUEQ_X)};
inline constexpr std::string_view rounding_spellings[] = {"", GPUEQ_EXEC_ROUNDINGS(GPUEQ_X)};  // by rounding
#undef GPUEQ_X

// What a comparison asks of two reals (exact and symbolic values have no NaN): the unordered
// forms (equ, ltu, ...) are the ordered ones, lo/ls/hi/hs the unsigned spellings of lt/le/gt/ge;
// num always holds, nan never.
enum class real_relation : std::uint8_t { eq, ne, lt, le, gt, ge, always, never };
constexpr real_relation relation_of(cmp_op c) {
  switch (c) {
    case cmp_op::eq: case cmp_op::equ: return real_relation::eq;
    case cmp_op::ne: case cmp_op::neu: return real_relation::ne;
    case cmp_op::lt: case cmp_op::ltu: case cmp_op::lo: return real_relation::lt;
    case cmp_op::le: case cmp_op::leu: case cmp_op::ls: return real_relation::le;
    case cmp_op::gt: case cmp_op::gtu: case cmp_op::hi: return real_relation::gt;
    case cmp_op::ge: case cmp_op::geu: case cmp_op::hs: return real_relation::ge;
    case cmp_op::num: return real_relation::always;
    case cmp_op::nan: return real_relation::never;
  }
  return real_relation::never;
}
// Whether relation r holds between a and b whose order is `order`: the sign of a - b.
constexpr bool holds(real_relation r, int order) {
  switch (r) {
    case real_relation::eq: return order == 0;
    case real_relation::ne: return order != 0;
    case real_relation::lt: return order < 0;
    case real_relation::le: return order <= 0;
    case real_relation::gt: return order > 0;
    case real_relation::ge: return order >= 0;
    case real_relation::always: return true;
    case real_relation::never: return false;
  }
  return false;
}

inline std::optional<cmp_op> cmp_of(std::string_view s) {
  for (std::size_t i = 0; i < std::size(cmp_spellings); ++i)
    if (cmp_spellings[i] == s) return static_cast<cmp_op>(i);
  return std::nullopt;
}

enum class cell_tag : std::uint8_t { empty, bits, real, packed, predicate };

// The fields every cell has, whatever its domain.
struct cell_head {
  cell_tag t = cell_tag::empty;
  rkind k = rkind::f32;      // real/packed: the kind of r (and r2); predicate: kind of the operands
  cmp_op cmp = cmp_op::eq;   // predicate: the undecided comparison r cmp r2
  bool negated = false;      // predicate: the complement of r cmp r2 (the second output of setp p|q)
  // bits and empty: the memory region an address was derived from, plus one (0: not an address).
  // Carried through address arithmetic so that an access past the end of one array that happens
  // to land in the next is still out of bounds (VOLTA §6.2's tolerated shared read). empty: see
  // cell.
  std::uint32_t provenance = 0;
};

// Where a cell keeps the rest. `bits` (bits: the value, predicates 0/1; empty: which undefined
// value) is read in bits and empty cells only, `r2` (packed: the high half, r the low one;
// predicate: the right operand) in packed and predicate cells only, so a domain whose value is
// plain data of at most 8 bytes (the float32 domain's double, the symbolic domain's term
// reference) keeps the two in one place: a cell of 24 bytes instead of 32, and a warp's row of a
// register (32 cells) 768 bytes instead of 1 KiB, which the warp-wide forms stream through.
// Writing r2 (of_packed, a predicate) overwrites bits and the reverse; nothing reads one after
// writing the other, since the tag says which is there. Other domains (the exact one's GMP
// rational) keep them apart.
template <class R, bool Overlaid = std::is_trivially_copyable_v<R> && sizeof(R) <= sizeof(std::uint64_t)>
struct cell_fields : cell_head {
  std::uint64_t bits = 0;
  R r{}, r2{};
};
template <class R>
struct cell_fields<R, true> : cell_head {
  R r{};
  union {
    std::uint64_t bits;
    R r2;
  };
  // Written out: an anonymous union whose member has a non-trivial default constructor (the
  // symbolic reference's zero-initialized fields) would delete the implicit one. Not constexpr:
  // with it, GCC 12 builds every cell a factory returns (of_bits, of_real) in a stack temporary
  // with narrow stores and copies it out with 16-byte loads, which stall on store forwarding; the
  // symbolic naive SGEMM ran 20 % slower (bench_exec, 2026-11-29).
  cell_fields() noexcept : bits(0) {}
};

// An `empty` cell is an *undefined* value, and `bits` says which: 0, a register never written
// (the initial state); 2, a value computed from an undefined one (an unwritten register moved,
// added, converted, compared or shuffled: PTX gives such a result no defined value either), with
// `provenance` the instruction (pc + 1) where an unwritten register was first read and bits >> 32
// that register; 1, the old value an atomic returned on symbolic data (semantics/atomic.hpp), which
// depends on the schedule; 3, a register an asynchronous wgmma.mma_async will write (its
// accumulator, or its A fragment, which it holds until then) and that the wgmma.wait_group
// retiring it has not yet landed, with `provenance` the wgmma.mma_async (pc + 1): reading it is an
// error wherever it happens (semantics/wgmma.hpp). Undefined values flow through data
// instructions and are an error only where they matter (engine.hpp, `undefined_read`).
template <class R>
struct cell : cell_fields<R> {
  using tag = cell_tag;
  static constexpr std::uint64_t never_written = 0, poisoned_atomic = 1, derived_undefined = 2, in_flight = 3,
                                 cache_policy = 4;

  static cell of_bits(std::uint64_t b) {
    cell c;
    c.t = tag::bits;
    c.bits = b;
    return c;
  }
  static cell of_real(R v, rkind kind) {
    cell c;
    c.t = tag::real;
    c.k = kind;
    c.r = std::move(v);
    return c;
  }
  static cell of_packed(R lo, R hi, rkind kind) {
    cell c;
    c.t = tag::packed;
    c.k = kind;
    c.r = std::move(lo);
    c.r2 = std::move(hi);
    return c;
  }
  // An undefined value computed from unwritten register `reg`, first read by instruction `pc`.
  static cell undefined_from(std::uint32_t reg, std::uint32_t pc) {
    return empty_at(derived_undefined | std::uint64_t{reg} << 32, pc);
  }
  bool is_derived_undefined() const { return this->t == tag::empty && (this->bits & 0xffffffffu) == derived_undefined; }
  // A register an in-flight wgmma.mma_async (instruction pc) owns until its wait_group.
  static cell in_flight_of(std::uint32_t pc) { return empty_at(in_flight, pc); }
  bool is_in_flight() const { return this->t == tag::empty && this->bits == in_flight; }
  // An L2 cache policy made by createpolicy (instruction pc) or computed from one: its bits are
  // opaque (the PTX ISA does not say what they are), so it is only ever a cache-hint operand,
  // which loads and stores do not read; moved or combined it stays a policy, and anything else
  // that reads it (a store of it, an address, a branch) stops the run (semantics/operands.hpp).
  static cell policy_of(std::uint32_t pc) { return empty_at(cache_policy, pc); }
  bool is_cache_policy() const { return this->t == tag::empty && this->bits == cache_policy; }
  bool is_bits() const { return this->t == tag::bits; }
  bool is_real() const { return this->t == tag::real; }

 private:
  // An empty cell that says why (`what`: one of the kinds above) and which instruction made it.
  static cell empty_at(std::uint64_t what, std::uint32_t pc) {
    cell c;
    c.bits = what;
    c.provenance = pc + 1;
    return c;
  }
};

}  // namespace gpueq::exec
