// A kernel decoded for execution: registers numbered densely, modifiers turned into flags and
// enums, operands pre-resolved (register index, immediate bits, special register, symbol), so the
// engine's inner loop never touches a string. Decoding is done once per kernel and shared by every
// run (concrete, symbolic, every CTA). An instruction whose modifiers we do not understand is
// decoded anyway and rejected when executed, with its line: nothing is silently skipped.
//
// The instructions that make up nearly all of a GEMM's or an attention kernel's thread-instructions
// (integer address arithmetic, comparisons, moves, f32 arithmetic, loads and stores through a
// register address, branches) also get a fast form: the operation with its types folded into
// shifts and its operands flattened to register indices or immediates. The engine runs a fast form
// without the generic operand path when the registers hold what the form expects (concrete bits
// for integer operands) and falls back to the generic path otherwise, so both give the same
// results, errors and observer events.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/values.hpp>
#include <gpueq/ptx/inline.hpp>
#include <gpueq/ptx/ir.hpp>
#include <gpueq/support/diagnostics.hpp>

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <bit>
#include <atomic>
#include <memory>
#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace gpueq::exec {

// Modifier flags (one bit each). Names are the PTX spellings without the dot.
#define GPUEQ_EXEC_FLAGS(X)                                                                                   \
  X(ftz) X(sat) X(approx) X(full) X(wide) X(hi) X(lo) X(uni) X(aligned) X(trans) X(x1) X(x2) X(x4) X(up)      \
  X(down) X(bfly) X(idx) X(all) X(any) X(ballot) X(and_, "and") X(or_, "or") X(xor_, "xor") X(popc) X(add)    \
  X(min) X(max) X(exch) X(cas) X(inc) X(dec) X(arrive) X(red) X(cc) X(clamp) X(wrap) X(l) X(r) X(row) X(col)  \
  X(a) X(b) X(c) X(d) X(sync) X(m16n8k16) X(m16n8k8) X(m16n16k16) X(m8n8) X(shiftamt) X(nc) X(volatile_,      \
  "volatile") X(ca) X(cg) X(to) X(m16n8k4) X(nan_, "NaN") X(relu) X(abs) X(wait_group) X(f4e) \
  X(parity) X(expect_tx) X(satfinite)

enum class flag : std::uint8_t {
#define GPUEQ_FLAG_ENUM(e, ...) e,
  GPUEQ_EXEC_FLAGS(GPUEQ_FLAG_ENUM)
#undef GPUEQ_FLAG_ENUM
};
#define GPUEQ_FLAG_COUNT(...) +1
static_assert(0 GPUEQ_EXEC_FLAGS(GPUEQ_FLAG_COUNT) <= 64, "xinstr::flags has one bit per flag: widen it first");
#undef GPUEQ_FLAG_COUNT

// Threads per warp, on every GPU PTX targets: the engine's warps and PTX's WARP_SZ.
inline constexpr std::uint32_t warp_threads = 32;

enum class special_reg : std::uint8_t {
  tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z,
  laneid, warpid, nwarpid, lanemask_eq, lanemask_lt, lanemask_le, lanemask_gt, lanemask_ge, smid, nsmid,
  gridid, clock, clock64, clock_hi, dynamic_smem_size, total_smem_size, globaltimer, globaltimer_lo,
  globaltimer_hi,
  // Thread-block clusters (exec/semantics/cluster.hpp; without a cluster, the implicit 1x1x1 one).
  cluster_ctaid_x, cluster_ctaid_y, cluster_ctaid_z, cluster_nctaid_x, cluster_nctaid_y, cluster_nctaid_z,
  clusterid_x, clusterid_y, clusterid_z, nclusterid_x, nclusterid_y, nclusterid_z, cluster_ctarank,
  cluster_nctarank, is_explicit_cluster,
  unsupported,  // any other: decoded, and a run that reads it stops (special_message says why)
};

struct xoperand {
  enum class kind : std::uint8_t { none, reg, imm, special, symbol, address, vector, sink };
  kind k = kind::none;
  bool negated = false;            // !%p
  bool imm_float = false;          // 0f / 0d immediate: bits of a float of the instruction's type
  bool base_symbol = false;        // address: [symbol+off] rather than [reg+off]
  special_reg sp = special_reg::tid_x;
  std::uint32_t reg = 0;           // reg, address base register
  std::uint32_t sym = 0;           // interned symbol name (symbol, address with a symbol base)
  std::uint64_t imm = 0;           // immediate bits; address / symbol offset
  std::vector<xoperand> elems;  // vector {a, b, ...} and pair d|p
  // A data operand as a list: a vector's elements, or the operand itself as a list of one
  // (ld/st/atom `{ %r }` is a vector of one, `%r` a list of one).
  std::uint32_t elements() const { return k == kind::vector ? static_cast<std::uint32_t>(elems.size()) : 1; }
  const xoperand& element(std::size_t e) const { return k == kind::vector ? elems[e] : *this; }
};

// The fast forms (see the header comment). Integer forms need concrete bits in every source
// register; their results are cut to the result type and sign-extended when it is signed.
//   none         the generic path only
//   bra          pc = target
//   mov          d = a (bits cut to the type unless .pred)
//   mov_special  d = special register, cut to the type
//   int_*        integer arithmetic (add .. max)
//   cvt_int      integer -> integer conversion without .sat
//   setp_int     d = a cmp b on integers (no combining predicate, one destination)
//   setp_f32     d = a cmp b on f32 values (an undecided comparison when the domain cannot decide)
//   selp         d = p ? a : b with p concrete
//   f32_arith    d = arith(a, b, c) in format f32 (the aop and float mode below)
//   ld           ld.{global,shared,generic} through [register + offset], 1, 2 or 4 elements
//   st           st.{global,shared,generic} through [register + offset], 1, 2 or 4 elements
// The list is an X-macro so that a dispatch over every form (the engine's warp-wide steps,
// exec/semantics/schedule.hpp) is written from it and cannot miss one.
#define GPUEQ_EXEC_FAST_OPS(X)                                                                                       \
  X(none) X(bra) X(mov) X(mov_special) X(int_add) X(int_sub) X(int_mul_lo) X(int_mul_wide) X(int_mad_lo)           \
  X(int_mad_wide) X(int_shl) X(int_shr) X(int_and) X(int_or) X(int_xor) X(int_min) X(int_max) X(cvt_int) X(setp_int) \
  X(setp_f32) X(selp) X(f32_arith) X(ld) X(st) X(ld_param)
#define GPUEQ_X(e) e,
enum class fast_op : std::uint8_t { GPUEQ_EXEC_FAST_OPS(GPUEQ_X) };
#undef GPUEQ_X

// Address windows: where each state space lives in the 64-bit generic address space (the
// engine's memory layout; cvta adds or takes off a window, in its generic and its fast form).
namespace address {
inline constexpr std::uint64_t global_stride = std::uint64_t{1} << 40;  // tensor i at (i+1) << 40
inline constexpr std::uint64_t shared_window = std::uint64_t{1} << 56;
inline constexpr std::uint64_t local_window = std::uint64_t{1} << 57;
inline constexpr std::uint64_t window_size = std::uint64_t{1} << 40;
}  // namespace address

// A decoded instruction's fast form, with what the engine's inner loop needs of the instruction
// (guard, branch target) so that the loop reads these records only. The fields the common forms
// touch come first.
struct fast_form {
  fast_op op = fast_op::none;
  std::uint8_t n = 0;              // sources (ld/st: vector elements)
  // Integer forms: 64 minus the width in bits of the operation type (t_) and of the result type
  // (r_), and their signedness; x cut to a type is (x << shift) >> shift, logically or
  // arithmetically. ld/st: the data type.
  std::uint8_t t_shift = 0, r_shift = 0;
  bool t_signed = false, r_signed = false;
  cmp_op cmp = cmp_op::eq;         // setp
  aop arith = aop::add;            // f32_arith
  std::uint8_t imm = 0;            // bit i: source i is the immediate imms[i], not register src[i]
  std::uint8_t width = 0;          // ld/st: bytes of one element
  ptx::state_space space = ptx::state_space::generic;  // ld/st: global, shared or generic
  bool plain = false;              // f32_arith: round to nearest, no .ftz/.sat/.approx
  bool guarded = false, guard_negated = false;
  float_mode mode;                 // f32_arith
  std::uint32_t guard = 0;         // the guard predicate's register
  std::uint32_t target = 0;        // bra
  std::uint32_t base = 0;          // ld/st: the address register, or the symbol where `absolute`
  bool absolute = false;           // ld/st: the address is a symbol plus offset ([tile+8]); mov: the
                                   // source is one (mov.u32 %r1, tile): the same for every thread
                                   // (engine::fixed_)
  std::uint32_t dst[4] = {};       // destination register(s); ld: one per element
  std::uint32_t src[4] = {};       // source registers; st: one per element
  std::uint64_t offset = 0;        // ld/st: the address offset
  std::uint64_t imms[4] = {};      // immediate sources

  bool is_imm(std::uint32_t i) const { return imm >> i & 1u; }
};

// Registers of an operand: a vector {a, b, ...} or one register (the matrix families'
// fragments, exec/semantics/tensor_core.hpp and wgmma.hpp).
inline std::vector<const xoperand*> regs_of(const xoperand& o) {
  std::vector<const xoperand*> v;
  if (o.k == xoperand::kind::vector)
    for (auto& e : o.elems) v.push_back(&e);
  else
    v.push_back(&o);
  return v;
}

struct xinstr {
  ptx::opcode op = ptx::opcode::ret;
  std::uint64_t flags = 0;
  boost::container::small_vector<vtype, 4> types;  // type modifiers in order
  vtype type = vtype::none;                        // the last one (the operation type)
  cmp_op cmp = cmp_op::eq;
  bool has_cmp = false;
  rounding round = rounding::none;
  ptx::state_space space = ptx::state_space::generic;
  bool has_space = false;
  std::uint8_t vec = 1;
  bool guarded = false, guard_negated = false;
  std::uint32_t guard = 0;
  std::uint32_t target = 0;  // bra
  ptx::real_function lifted_fn = ptx::real_function::exp;
  boost::container::small_vector<xoperand, 4> ops;
  std::vector<std::uint32_t> unknown_mods;  // interned modifiers no flag stands for

  bool has(flag f) const { return flags >> static_cast<unsigned>(f) & 1u; }
};

// A decoded kernel; refers to the module it came from (for names and lines). A kernel that calls
// device functions is decoded with its calls inlined (ptx/inline.hpp): `module` and `function` are
// then a copy the program owns (`owned`), in which `function` is the inlined kernel, so that
// instruction indices, lines and names all refer to it.
struct program {
  const ptx::module* module = nullptr;
  const ptx::function* function = nullptr;
  std::shared_ptr<const ptx::module> owned;  // the module with the kernel's calls inlined, if it has calls
  // Calls nested deeper than this were not inlined (ptx::max_call_depth, or less where deeper
  // inlining would exceed ptx::max_inlined_instructions); a thread that reaches one stops.
  std::uint32_t call_depth = ptx::max_call_depth;
  std::vector<xinstr> code;
  std::vector<fast_form> fast;  // per instruction of code
  std::uint32_t registers = 0;
  std::vector<std::uint32_t> register_names;  // interned name per register index
  // The carry flag CC.CF, which add.cc, sub.cc and mad.cc write and addc, subc and madc read: a
  // register of each thread like the others (so it is per thread, undefined until written, and
  // starts over with the thread), named by none of the PTX's (its register_names entry is the
  // empty name 0). no_carry: no instruction of the kernel uses it.
  static constexpr std::uint32_t no_carry = ~0u;
  std::uint32_t carry_register = no_carry;
  std::string_view str(std::uint32_t id) const { return module->str(id); }
};

// The domain operation of a floating-point arithmetic opcode (the engine's float_op and its f32
// fast form), or none.
inline std::optional<aop> float_aop(ptx::opcode code) {
  using op = ptx::opcode;
  switch (code) {
    case op::add: return aop::add;
    case op::sub: return aop::sub;
    case op::mul: return aop::mul;
    case op::fma: case op::mad: return aop::fma;
    case op::div: return aop::div;
    case op::neg: return aop::neg;
    case op::abs: return aop::abs;
    case op::min: return aop::min;
    case op::max: return aop::max;
    case op::rcp: return aop::rcp;
    case op::sqrt: return aop::sqrt;
    case op::rsqrt: return aop::rsqrt;
    case op::ex2: return aop::exp2;
    case op::lg2: return aop::log2;
    case op::tanh: return aop::tanh;
    case op::sin: return aop::sin;
    case op::cos: return aop::cos;
    default: return std::nullopt;
  }
}

namespace detail {

struct modifier_meaning {
  enum class what : std::uint8_t { flag, type, cmp, round, space, vec, ignore } w;
  std::uint8_t value;
};

inline const boost::unordered_flat_map<std::string_view, modifier_meaning>& modifier_table() {
  using w = modifier_meaning::what;
  static const boost::unordered_flat_map<std::string_view, modifier_meaning> table = [] {
    boost::unordered_flat_map<std::string_view, modifier_meaning> t;
    std::uint8_t i = 0;
#define GPUEQ_FLAG_NAME_1(e) t.emplace("." #e, modifier_meaning{w::flag, i++});
#define GPUEQ_FLAG_NAME_2(e, s) t.emplace("." s, modifier_meaning{w::flag, i++});
#define GPUEQ_FLAG_PICK(_1, _2, NAME, ...) NAME
#define GPUEQ_FLAG_NAME(...) GPUEQ_FLAG_PICK(__VA_ARGS__, GPUEQ_FLAG_NAME_2, GPUEQ_FLAG_NAME_1)(__VA_ARGS__)
    GPUEQ_EXEC_FLAGS(GPUEQ_FLAG_NAME)
#undef GPUEQ_FLAG_NAME
#undef GPUEQ_FLAG_PICK
#undef GPUEQ_FLAG_NAME_2
#undef GPUEQ_FLAG_NAME_1
    for (std::size_t v = 0; v < std::size(ptx::executed_type_spellings); ++v)
      t.emplace(ptx::executed_type_spellings[v], modifier_meaning{w::type, static_cast<std::uint8_t>(v + 1)});
    for (std::size_t c = 0; c < std::size(cmp_spellings); ++c)
      t.emplace(cmp_spellings[c], modifier_meaning{w::cmp, static_cast<std::uint8_t>(c)});
    for (std::size_t r = 1; r < std::size(rounding_spellings); ++r)
      t.emplace(rounding_spellings[r], modifier_meaning{w::round, static_cast<std::uint8_t>(r)});
    constexpr std::pair<std::string_view, ptx::state_space> spaces[] = {
        {".global", ptx::state_space::global}, {".shared", ptx::state_space::shared},
        {".shared::cta", ptx::state_space::shared}, {".local", ptx::state_space::local},
        // A CTA's own shared memory is a window of the cluster's (PTX: a .shared::cta address is
        // a valid .shared::cluster address of the executing CTA). Addresses of other CTAs carry
        // their CTA's rank (mapa; exec/semantics/cluster.hpp), so one space serves both.
        {".shared::cluster", ptx::state_space::shared},
        {".const", ptx::state_space::constant}, {".param", ptx::state_space::param}};
    for (auto [s, sp] : spaces) t.emplace(s, modifier_meaning{w::space, static_cast<std::uint8_t>(sp)});
    t.emplace(".v2", modifier_meaning{w::vec, 2});
    t.emplace(".v4", modifier_meaning{w::vec, 4});
    t.emplace(".v8", modifier_meaning{w::vec, 8});
    // Modifiers that do not change what one CTA computes under our model: memory-order and scope
    // qualifiers (a race-free CTA is sequentially consistent at barriers), cache hints, the
    // eviction-priority and L2 hints, and the matrix/fragment spellings decoded by shape flags.
    for (std::string_view s : {".relaxed", ".acquire", ".release", ".acq_rel", ".sc", ".weak", ".cta", ".gpu", ".sys",
                               ".cluster", ".cs", ".lu", ".cv", ".wb", ".wt", ".L1::evict_last", ".L1::evict_first",
                               ".L1::no_allocate", ".L2::64B", ".L2::128B", ".L2::256B", ".L2::cache_hint",
                               ".L1::evict_normal", ".L1::evict_unchanged",
                               // fence.mbarrier_init orders an mbarrier's init for the cluster's
                               // other CTAs; within one CTA the barrier after the init does.
                               ".mbarrier_init",
                               // atom.add.noftz.f16/.f16x2/.bf16: subnormals are not flushed, which is
                               // what every gpueq domain does anyway.
                               ".noftz"})
      t.emplace(s, modifier_meaning{w::ignore, 0});
    return t;
  }();
  return table;
}

inline special_reg special_of(std::string_view s, bool& ok) {
  constexpr std::pair<std::string_view, special_reg> table[] = {
      {"%tid.x", special_reg::tid_x}, {"%tid.y", special_reg::tid_y}, {"%tid.z", special_reg::tid_z},
      {"%ntid.x", special_reg::ntid_x}, {"%ntid.y", special_reg::ntid_y}, {"%ntid.z", special_reg::ntid_z},
      {"%ctaid.x", special_reg::ctaid_x}, {"%ctaid.y", special_reg::ctaid_y}, {"%ctaid.z", special_reg::ctaid_z},
      {"%nctaid.x", special_reg::nctaid_x}, {"%nctaid.y", special_reg::nctaid_y}, {"%nctaid.z", special_reg::nctaid_z},
      {"%laneid", special_reg::laneid}, {"%warpid", special_reg::warpid}, {"%nwarpid", special_reg::nwarpid},
      {"%lanemask_eq", special_reg::lanemask_eq}, {"%lanemask_lt", special_reg::lanemask_lt},
      {"%lanemask_le", special_reg::lanemask_le}, {"%lanemask_gt", special_reg::lanemask_gt},
      {"%lanemask_ge", special_reg::lanemask_ge}, {"%smid", special_reg::smid}, {"%nsmid", special_reg::nsmid},
      {"%gridid", special_reg::gridid}, {"%clock", special_reg::clock}, {"%clock64", special_reg::clock64},
      {"%dynamic_smem_size", special_reg::dynamic_smem_size}, {"%total_smem_size", special_reg::total_smem_size},
      {"%globaltimer", special_reg::globaltimer}, {"%clock_hi", special_reg::clock_hi},
      {"%globaltimer_lo", special_reg::globaltimer_lo}, {"%globaltimer_hi", special_reg::globaltimer_hi},
      {"%cluster_ctaid.x", special_reg::cluster_ctaid_x}, {"%cluster_ctaid.y", special_reg::cluster_ctaid_y},
      {"%cluster_ctaid.z", special_reg::cluster_ctaid_z}, {"%cluster_nctaid.x", special_reg::cluster_nctaid_x},
      {"%cluster_nctaid.y", special_reg::cluster_nctaid_y}, {"%cluster_nctaid.z", special_reg::cluster_nctaid_z},
      {"%clusterid.x", special_reg::clusterid_x}, {"%clusterid.y", special_reg::clusterid_y},
      {"%clusterid.z", special_reg::clusterid_z}, {"%nclusterid.x", special_reg::nclusterid_x},
      {"%nclusterid.y", special_reg::nclusterid_y}, {"%nclusterid.z", special_reg::nclusterid_z},
      {"%cluster_ctarank", special_reg::cluster_ctarank}, {"%cluster_nctarank", special_reg::cluster_nctarank},
      {"%is_explicit_cluster", special_reg::is_explicit_cluster}};
  for (auto [n, r] : table)
    if (n == s) {
      ok = true;
      return r;
    }
  ok = false;
  return special_reg::unsupported;
}

// Why a run cannot read a special register outside special_of's table: the engine's error when
// one is read (decoding does not stop there, as for an unsupported opcode, so a kernel that never
// executes the read still runs).
inline std::string special_message(std::string_view s) {
  std::string n(s);
  if (s.starts_with("%envreg"))
    return n + " is a driver-defined environment register; cooperative groups read the grid-wide "
               "barrier's workspace from %envreg1 and %envreg2 (this_grid().sync(), a grid-wide sync of a "
               "cooperative launch), and grid-wide synchronization is not supported: gpueq runs each CTA on "
               "its own";
  if (s.starts_with("%pm"))
    return n + " is a performance-monitoring counter, which has no value in gpueq's model";
  return "unsupported special register " + n;
}

class decoder {
 public:
  decoder(const ptx::module& m, const ptx::function& f) : m_(m), f_(f) {
    p_.module = &m;
    p_.function = &f;
  }
  program run() {
    p_.code.reserve(f_.instructions.size());
    for (const auto& i : f_.instructions) p_.code.push_back(decode(i));
    for (const auto& x : p_.code) p_.fast.push_back(fast_form_of(x));
    p_.registers = static_cast<std::uint32_t>(p_.register_names.size());
    return std::move(p_);
  }

 private:
  std::uint32_t reg_index(std::uint32_t name) {
    auto [it, inserted] = regs_.try_emplace(name, static_cast<std::uint32_t>(p_.register_names.size()));
    if (inserted) p_.register_names.push_back(name);
    return it->second;
  }

  xoperand operand(const ptx::operand& o, const ptx::instruction& at) {
    xoperand x;
    x.negated = o.negated;
    switch (o.kind) {
      case ptx::operand_kind::reg:
        x.k = xoperand::kind::reg;
        x.reg = reg_index(o.name);
        break;
      case ptx::operand_kind::special: {
        if (m_.str(o.name) == "WARP_SZ") {  // the predefined constant: the warp size, an immediate
          x.k = xoperand::kind::imm;
          x.imm = warp_threads;
          break;
        }
        bool ok = false;
        x.sp = special_of(m_.str(o.name), ok);
        x.sym = o.name;  // for the message of an unsupported one
        x.k = xoperand::kind::special;
        break;
      }
      case ptx::operand_kind::imm_int:
        x.k = xoperand::kind::imm;
        x.imm = static_cast<std::uint64_t>(o.value);
        break;
      case ptx::operand_kind::imm_f32:
      case ptx::operand_kind::imm_f64:
        x.k = xoperand::kind::imm;
        x.imm_float = true;
        x.imm = static_cast<std::uint64_t>(o.value);
        // A 0d immediate on an f32 instruction (or 0f on f64) is converted by ptxas; keep the
        // width so the engine can convert too.
        x.base_symbol = o.kind == ptx::operand_kind::imm_f64;
        break;
      case ptx::operand_kind::symbol:
        x.k = xoperand::kind::symbol;
        x.sym = o.name;
        x.imm = static_cast<std::uint64_t>(o.value);
        break;
      case ptx::operand_kind::address:
        x.k = xoperand::kind::address;
        x.imm = static_cast<std::uint64_t>(o.value);
        if (o.base == ptx::address_base::reg) x.reg = reg_index(o.name);
        else if (o.base == ptx::address_base::symbol) {
          x.base_symbol = true;
          x.sym = o.name;
        } else {
          x.base_symbol = true;  // [imm]: an absolute address, symbol 0
          x.sym = 0;
        }
        for (auto& e : o.elems) x.elems.push_back(operand(e, at));  // [map, {coordinates}]
        break;
      case ptx::operand_kind::vector:
      case ptx::operand_kind::pair:
      case ptx::operand_kind::list:
        x.k = xoperand::kind::vector;
        for (auto& e : o.elems) x.elems.push_back(operand(e, at));
        break;
      case ptx::operand_kind::sink: x.k = xoperand::kind::sink; break;
    }
    return x;
  }

  xinstr decode(const ptx::instruction& i) {
    using w = modifier_meaning::what;
    xinstr x;
    x.op = i.op;
    x.guarded = i.guarded;
    x.guard_negated = i.guard_negated;
    if (i.guarded) x.guard = reg_index(i.guard);
    x.target = i.target;
    x.lifted_fn = i.lifted_fn;
    const auto& table = modifier_table();
    for (auto id : i.mods) {
      auto it = table.find(m_.str(id));
      if (it == table.end()) {
        x.unknown_mods.push_back(id);
        continue;
      }
      auto [what, v] = it->second;
      switch (what) {
        case w::flag: x.flags |= std::uint64_t{1} << v; break;
        case w::type: x.types.push_back(static_cast<vtype>(v)); break;
        case w::cmp:
          x.cmp = static_cast<cmp_op>(v);
          x.has_cmp = true;
          break;
        case w::round: x.round = static_cast<rounding>(v); break;
        case w::space:
          x.space = static_cast<ptx::state_space>(v);
          x.has_space = true;
          break;
        case w::vec: x.vec = v; break;
        case w::ignore: break;
      }
    }
    if (!x.types.empty()) x.type = x.types.back();
    if ((x.has(flag::cc) || x.op == ptx::opcode::addc || x.op == ptx::opcode::subc || x.op == ptx::opcode::madc) &&
        p_.carry_register == program::no_carry) {
      p_.carry_register = static_cast<std::uint32_t>(p_.register_names.size());
      p_.register_names.push_back(0);
    }
    // `.lo`/`.hi` are both multiply halves and unsigned comparisons; on a comparison they compare
    // (`.ls`/`.hs` are only comparisons).
    if ((x.op == ptx::opcode::setp || x.op == ptx::opcode::set) && !x.has_cmp && (x.has(flag::lo) || x.has(flag::hi))) {
      x.cmp = x.has(flag::lo) ? cmp_op::lo : cmp_op::hi;
      x.has_cmp = true;
    }
    for (auto& o : i.operands) x.ops.push_back(operand(o, i));
    // A 0d immediate on an f32 operation (or 0f on f64) is converted, as ptxas does, so the
    // engine can read every float immediate as bits of the operation's format.
    vtype source = x.type;  // for cvt the source type, the operand an immediate can be
    for (auto& o : x.ops)
      if (o.k == xoperand::kind::imm && o.imm_float) {
        bool is_f64 = o.base_symbol;
        if (source == vtype::f32 && is_f64)
          o.imm = std::bit_cast<std::uint32_t>(static_cast<float>(std::bit_cast<double>(o.imm)));
        else if (source == vtype::f64 && !is_f64)
          o.imm = std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(o.imm))));
        o.base_symbol = false;
      }
    return x;
  }

  // ---- fast forms ------------------------------------------------------------------------
  static bool source_of(const xoperand& o, fast_form& f, std::size_t i) {
    if (o.k == xoperand::kind::reg && !o.negated) {
      f.src[i] = o.reg;
      return true;
    }
    if (o.k == xoperand::kind::imm) {
      f.imm = static_cast<std::uint8_t>(f.imm | 1u << i);
      f.imms[i] = o.imm;
      return true;
    }
    return false;
  }
  static bool plain_integer(vtype t) {
    return bytes(t) >= 1 && bytes(t) <= 8 && t != vtype::pred && !is_float(t) && t != vtype::b128;
  }
  static std::uint8_t shift_of(vtype t) { return static_cast<std::uint8_t>(64 - 8 * bytes(t)); }
  static bool only_flags(const xinstr& x, std::initializer_list<flag> allowed) {
    std::uint64_t m = 0;
    for (flag f : allowed) m |= std::uint64_t{1} << static_cast<unsigned>(f);
    return (x.flags & ~m) == 0;
  }
  // Sources ops[1..] (n of them) and the register destination ops[0].
  static bool sources(const xinstr& x, std::size_t n, fast_form& f) {
    if (x.ops.size() != n + 1 || x.ops[0].k != xoperand::kind::reg) return false;
    f.dst[0] = x.ops[0].reg;
    f.n = static_cast<std::uint8_t>(n);
    for (std::size_t i = 0; i < n; ++i)
      if (!source_of(x.ops[i + 1], f, i)) return false;
    return true;
  }
  static bool memory_operand(const xinstr& x, const xoperand& a, fast_form& f) {
    if (a.k != xoperand::kind::address || (a.base_symbol && !a.sym)) return false;
    if (x.has_space && x.space != ptx::state_space::global && x.space != ptx::state_space::shared) return false;
    std::uint32_t w = bytes(x.type);
    if (x.type == vtype::none || x.type == vtype::pred || (w != 1 && w != 2 && w != 4 && w != 8)) return false;
    f.space = x.has_space ? x.space : ptx::state_space::generic;
    f.width = static_cast<std::uint8_t>(w);
    f.absolute = a.base_symbol;
    f.base = a.base_symbol ? a.sym : a.reg;
    f.offset = a.imm;
    f.t_shift = shift_of(x.type);
    f.t_signed = is_signed(x.type);
    return true;
  }

  static fast_form fast_form_of(const xinstr& x) {
    fast_form f;
    // An unsupported opcode gets none: the generic path stops the run with the table's message.
    if (!ptx::is_supported(x.op) || !x.unknown_mods.empty() || x.has(flag::relu) || x.has(flag::satfinite) ||
        !classify(x, f))
      f = fast_form{};
    f.guarded = x.guarded;
    f.guard_negated = x.guard_negated;
    f.guard = x.guard;
    f.target = x.target;
    return f;
  }
  static bool classify(const xinstr& x, fast_form& f) {
    using op = ptx::opcode;
    auto integer = [&](fast_op o, std::size_t n, vtype result) {
      if (!plain_integer(x.type) || !plain_integer(result) || !sources(x, n, f)) return false;
      f.op = o;
      f.t_shift = shift_of(x.type);
      f.t_signed = is_signed(x.type);
      f.r_shift = shift_of(result);
      f.r_signed = is_signed(result);
      return true;
    };
    auto wide_of = [](vtype t) {  // the engine's mul.wide result types for 16- and 32-bit sources
      switch (t) {
        case vtype::s16: return vtype::s32;
        case vtype::u16: return vtype::u32;
        case vtype::s32: return vtype::s64;
        case vtype::u32: return vtype::u64;
        default: return vtype::none;
      }
    };
    switch (x.op) {
      case op::bra:
        if (x.has(flag::uni) ? !only_flags(x, {flag::uni}) : x.flags != 0) return false;
        f.op = fast_op::bra;
        return true;
      case op::mov:
        if (x.flags || x.ops.size() != 2 || x.ops[0].k != xoperand::kind::reg) return false;
        if (x.type == vtype::none || x.type == vtype::b128) return false;
        f.dst[0] = x.ops[0].reg;
        f.t_shift = x.type == vtype::pred ? 0 : shift_of(x.type);
        if (x.ops[1].k == xoperand::kind::special) {
          if (x.ops[1].sp == special_reg::unsupported) return false;
          f.op = fast_op::mov_special;
          f.src[0] = static_cast<std::uint32_t>(x.ops[1].sp);
          return true;
        }
        f.op = fast_op::mov;
        if (x.ops[1].k == xoperand::kind::symbol && x.ops[1].sym && x.type != vtype::pred) {
          f.absolute = true;
          f.base = x.ops[1].sym;
          f.offset = x.ops[1].imm;
          return true;
        }
        return source_of(x.ops[1], f, 0);
      case op::cvta: {
        // The address plus its space's window (minus it: .to), bits and provenance as add's.
        if (!only_flags(x, {flag::to}) || !x.has_space) return false;
        std::uint64_t window = 0;
        if (x.space == ptx::state_space::shared) window = address::shared_window;
        else if (x.space == ptx::state_space::local) window = address::local_window;
        else if (x.space != ptx::state_space::global) return false;
        if (!integer(fast_op::int_add, 1, x.type)) return false;
        f.n = 2;
        f.imm = static_cast<std::uint8_t>(f.imm | 2u);
        f.imms[1] = x.has(flag::to) ? std::uint64_t{0} - window : window;
        return true;
      }
      case op::add: case op::sub: case op::and_: case op::or_: case op::xor_: case op::min: case op::max:
        if (!x.flags && integer(x.op == op::add ? fast_op::int_add : x.op == op::sub ? fast_op::int_sub
                                : x.op == op::and_ ? fast_op::int_and : x.op == op::or_ ? fast_op::int_or
                                : x.op == op::xor_ ? fast_op::int_xor : x.op == op::min ? fast_op::int_min
                                                                      : fast_op::int_max,
                                2, x.type))
          return true;
        f = fast_form{};
        return f32(x, f);
      case op::shl: case op::shr:
        if (x.flags) return false;
        return integer(x.op == op::shl ? fast_op::int_shl : fast_op::int_shr, 2, x.type);
      case op::mul: case op::mad: {
        std::size_t n = x.op == op::mul ? 2 : 3;
        if (x.flags == (std::uint64_t{1} << static_cast<unsigned>(flag::lo)))
          return integer(n == 2 ? fast_op::int_mul_lo : fast_op::int_mad_lo, n, x.type);
        if (x.flags == (std::uint64_t{1} << static_cast<unsigned>(flag::wide)))
          return wide_of(x.type) != vtype::none && integer(n == 2 ? fast_op::int_mul_wide : fast_op::int_mad_wide, n, wide_of(x.type));
        f = fast_form{};
        return f32(x, f);
      }
      case op::cvt: {
        if (x.flags || x.types.size() < 2) return false;
        vtype to = x.types[x.types.size() - 2], from = x.types.back();
        if (!plain_integer(to) || !plain_integer(from) || !sources(x, 1, f)) return false;
        f.op = fast_op::cvt_int;
        f.t_shift = shift_of(from);
        f.t_signed = is_signed(from);
        f.r_shift = shift_of(to);
        f.r_signed = is_signed(to);
        return true;
      }
      case op::setp:  // (.lo/.hi spell the unsigned comparisons: the decoder made them x.cmp)
        if (!only_flags(x, {flag::lo, flag::hi}) || !x.has_cmp || !sources(x, 2, f)) return false;
        f.cmp = x.cmp;
        if (x.type == vtype::f32) {
          f.op = fast_op::setp_f32;
          return true;
        }
        if (!plain_integer(x.type) || static_cast<unsigned>(x.cmp) > static_cast<unsigned>(cmp_op::hs)) return false;
        f.op = fast_op::setp_int;
        f.t_shift = shift_of(x.type);
        f.t_signed = is_signed(x.type);
        return true;
      case op::selp:
        if (x.flags || !sources(x, 3, f) || f.is_imm(2)) return false;
        f.op = fast_op::selp;
        return true;
      case op::ld: case op::st: {
        bool load = x.op == op::ld;
        // A whole kernel parameter by name (ld.param.u64 %rd1, [k_param_0]): the parameter's value,
        // which setup finds per instruction (engine::param_at_; a struct field or anything else
        // there takes the generic path).
        if (load && x.has_space && x.space == ptx::state_space::param) {
          if (x.flags || x.ops.size() != 2 || x.vec != 1 || x.ops[0].k != xoperand::kind::reg) return false;
          const xoperand& a = x.ops[1];
          if (a.k != xoperand::kind::address || !a.base_symbol || !a.sym || a.imm != 0) return false;
          f.op = fast_op::ld_param;
          f.dst[0] = x.ops[0].reg;
          f.base = a.sym;
          return true;
        }
        // (.volatile means nothing more to the engine than a plain access: load and store ignore it)
        if (!only_flags(x, {flag::nc, flag::ca, flag::cg, flag::volatile_}) || x.ops.size() != 2 || x.vec > 4) return false;
        const xoperand& data = x.ops[load ? 0 : 1];
        if (!memory_operand(x, x.ops[load ? 1 : 0], f)) return false;
        std::vector<const xoperand*> elems;
        if (data.k == xoperand::kind::vector)
          for (auto& e : data.elems) elems.push_back(&e);
        else
          elems.push_back(&data);
        if (elems.size() != 1 && elems.size() != 2 && elems.size() != 4) return false;
        f.n = static_cast<std::uint8_t>(elems.size());
        for (std::size_t i = 0; i < elems.size(); ++i) {
          if (load) {
            if (elems[i]->k != xoperand::kind::reg) return false;
            f.dst[i] = elems[i]->reg;
          } else if (!source_of(*elems[i], f, i)) {
            return false;
          }
        }
        f.op = load ? fast_op::ld : fast_op::st;
        return true;
      }
      default: return f32(x, f);
    }
  }

  // f32 arithmetic: the operations the engine's float_op maps to a domain operation.
  static bool f32(const xinstr& x, fast_form& f) {
    if (x.type != vtype::f32 || x.types.size() != 1) return false;
    if (!only_flags(x, {flag::ftz, flag::sat, flag::approx, flag::full})) return false;
    auto code = float_aop(x.op);
    if (!code) return false;
    const aop o = *code;
    if (x.ops.size() < 2 || x.ops.size() > 4 || !sources(x, x.ops.size() - 1, f)) return false;
    if ((o == aop::min || o == aop::max) && x.ops.size() != 3) return false;  // three-input: float_op
    f.op = fast_op::f32_arith;
    f.arith = o;
    f.mode.round = x.round == rounding::none ? rounding::rn : x.round;
    f.mode.ftz = x.has(flag::ftz);
    f.mode.sat = x.has(flag::sat);
    f.mode.approx = x.has(flag::approx);
    f.plain = f.mode.round == rounding::rn && !f.mode.ftz && !f.mode.sat && !f.mode.approx &&
              (o == aop::add || o == aop::sub || o == aop::mul || o == aop::fma);
    return true;
  }

  const ptx::module& m_;
  const ptx::function& f_;
  program p_;
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> regs_;
};

}  // namespace detail

// Decodes a kernel, its device-function calls inlined (ptx/inline.hpp; throws
// support::diagnostic_error for a call whose arguments do not match the function).
// How many programs this process has decoded: check's prepared kernels decode each side once per
// check, and a test holds them to it.
inline std::atomic<std::uint64_t>& decode_count() {
  static std::atomic<std::uint64_t> n{0};
  return n;
}

inline program decode(const ptx::module& m, const ptx::function& f) {
  ++decode_count();
  if (!ptx::has_calls(f)) return detail::decoder(m, f).run();
  auto owned = std::make_shared<ptx::module>(m);
  ptx::inlined_kernel k = ptx::inline_calls(*owned, f);
  std::size_t at = owned->functions.size();
  for (std::size_t i = 0; i < m.functions.size(); ++i)
    if (&m.functions[i] == &f) at = i;
  if (at < owned->functions.size()) owned->functions[at] = std::move(k.flat);
  else owned->functions.push_back(std::move(k.flat));
  program p = detail::decoder(*owned, owned->functions[at]).run();
  p.owned = std::move(owned);
  p.call_depth = k.depth_limit;
  return p;
}

}  // namespace gpueq::exec
