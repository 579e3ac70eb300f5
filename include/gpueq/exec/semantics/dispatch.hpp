// Dispatch (not an instruction family; engine<D, O>, declared in exec/engine.hpp): one thread's
// step, through the instruction's fast form (program.hpp) where its operands allow, else the
// generic path: the guard, the opcode table's unsupported entries and modifier checks, control
// flow and barriers, then `execute`, which hands the instruction to its family.
#pragma once

#include <gpueq/exec/engine.hpp>

#include <cstdint>
#include <string>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"  // GCC bug 105329, as in exec/engine.hpp
#endif

namespace gpueq::exec {

// Why a call is still in the program: decode inlines every direct call of a function with a
// body (ptx/inline.hpp) up to program::call_depth nested calls, so a call that a thread reaches
// is an indirect one, one of a function without a body, or one nested deeper than that.
template <value_domain D, observer O>
inline std::string engine<D, O>::call_not_inlined(const xinstr& x) const {
  const xoperand* callee = nullptr;
  for (const xoperand& o : x.ops)
    if (o.k != xoperand::kind::vector) {
      callee = &o;
      break;
    }
  if (!callee || callee->k != xoperand::kind::symbol)
    return "an indirect call (through a function pointer" +
           (callee && callee->k == xoperand::kind::reg ? " in register " + register_name(callee->reg) : std::string()) +
           ") is not supported: gpueq inlines the device functions a call names";
  std::string_view name = p_.str(callee->sym);
  std::string shown = "'" + support::readable_symbol(name) + "'";
  if (support::readable_symbol(name) != name) shown += " (" + std::string(name) + ")";
  const ptx::function* g = ptx::defined_function(*p_.module, name);
  if (!g || !g->has_body)
    return "a call of " + shown + ", which has no body in this module (an .extern function" +
           (name == "vprintf" ? std::string(": printf") : std::string()) + "): gpueq runs only device functions it can inline";
  if (p_.call_depth >= ptx::max_call_depth)
    return "a call of " + shown + " nested " + std::to_string(p_.call_depth + 1) + " calls deep: recursion deeper than " +
           std::to_string(ptx::max_call_depth) + " nested calls is not supported (gpueq inlines device functions, and " +
           "inlines calls at most " + std::to_string(ptx::max_call_depth) + " deep)";
  return "a call of " + shown + " nested " + std::to_string(p_.call_depth + 1) + " calls deep: gpueq inlines device " +
         "functions, and inlining this kernel's calls more than " + std::to_string(p_.call_depth) + " deep would exceed " +
         std::to_string(ptx::max_inlined_instructions) + " instructions (recursion that branches)";
}

template <value_domain D, observer O>
inline void engine<D, O>::generic_step(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  if (x.guarded) {
    const value& g = reg(t, x.guard);
    if (g.t == value::tag::empty)
      fail_at(g.bits == value::poisoned_atomic ? error_kind::not_structured : error_kind::uninitialized, t,
              "guard predicate: " + undefined_message(x.guard, g));
    if (g.t == value::tag::predicate && x.op == ptx::opcode::mov && !is_collective(x.op)) {
      try {
        guarded_move(t, x, g);
      } catch (const undefined_operand& u) {
        write_undefined(t, x, u.v);
      }
      pc_[t] = pc + 1;
      return;
    }
    if (truth(t, g) == x.guard_negated) {
      pc_[t] = pc + 1;
      return;
    }
  }
  // An opcode the table marks unsupported stops here with the table's message, the words
  // `gpueq parse` listed it with (ptx/opcodes.hpp), before any modifier or operand is looked at.
  if (!ptx::is_supported(x.op)) fail_at(error_kind::unsupported, t, std::string(ptx::unsupported_message(x.op)));
  if (!x.unknown_mods.empty() && !tolerates_unknown(x.op))
    fail_at(error_kind::unsupported, t, "modifier " + std::string(p_.str(x.unknown_mods.front())));
  // .relu and .satfinite are modelled on cvt only (semantics/convert.hpp); elsewhere (max.relu,
  // fma.relu, ...) they would change values, so they stop the run instead of being ignored.
  if ((x.has(flag::relu) || x.has(flag::satfinite)) && x.op != ptx::opcode::cvt)
    fail_at(error_kind::unsupported, t,
            std::string("modifier ") + (x.has(flag::relu) ? ".relu" : ".satfinite") + " outside cvt");
  // Warp collectives (the opcode table's `warp` trait): the lanes arrive, the last one runs it.
  if (auto c = ptx::collective(x.op);
      c == ptx::collective_kind::warp || (c == ptx::collective_kind::warp_if_aligned && x.has(flag::aligned)))
    return arrive_warp(t, x, pc);
  using op = ptx::opcode;
  switch (x.op) {  // instructions that decide where the thread goes next
    case op::bra: pc_[t] = x.target; return;
    case op::ret: case op::exit: exit_thread(t, pc); return;
    case op::call: fail_at(error_kind::unsupported, t, call_not_inlined(x));
    case op::bar: case op::barrier: return barrier(t, x, pc);
    case op::barrier_cluster: return cluster_barrier(t, x, pc);
    case op::mbarrier_test_wait: case op::mbarrier_try_wait: return mbarrier_wait(t, x, pc);
    default: break;
  }
  try {
    execute(t, x, pc);  // errors inside name this instruction: pc_[t] still points at it
  } catch (const undefined_operand& u) {  // a data instruction read an undefined value
    write_undefined(t, x, u.v);
  }
  pc_[t] = pc + 1;
}

template <value_domain D, observer O>
inline void engine<D, O>::execute(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
  using op = ptx::opcode;
  switch (x.op) {
    case op::trap: case op::brkpt: fail_at(error_kind::trap, t, "the kernel executed trap");
    case op::membar: case op::prefetch: case op::prefetchu: case op::applypriority: case op::nanosleep:
    case op::pmevent:
      return;
    // createpolicy: an L2 cache eviction policy, in every form (.fractional, .range, .cvt). The
    // hardware's encoding is opaque (the PTX ISA does not document it) and gpueq's loads and
    // stores ignore cache hints, so the policy is an opaque cell (value::policy_of): a kernel that
    // passes it to ld/st/cp.async.bulk .L2::cache_hint gets what it would without the hint; one
    // that stores it, or uses it as an address or a condition, stops the run as not modelled
    // (README, "Semantics decisions"). Its other operands (a fraction, an address range, an
    // access property) are hints and are not read.
    case op::createpolicy: return write(t, x.ops[0], value::policy_of(pc));
    case op::fence: return fence(t, x, pc);
    case op::cp_async_bulk: case op::cp_async_bulk_tensor: case op::cp_reduce_async_bulk: return bulk_copy(t, x, pc);
    case op::cp_async_bulk_commit_group: case op::cp_async_bulk_wait_group: return bulk_wait(t, x, pc);
    case op::tensormap_replace: case op::tensormap_cp_fenceproxy: return tensormap_op(t, x, pc);
    case op::griddepcontrol: return grid_dependency_control(t, x);
    case op::mov: return mov(t, x);
    case op::cvta: return cvta(t, x);
    case op::isspacep: return isspacep(t, x);
    case op::cvt: return cvt(t, x);
    case op::ld: case op::ldu: return load(t, x, pc);
    case op::st: return store(t, x, pc);
    case op::atom: case op::red: return atomic(t, x, pc);
    case op::cp_async: return cp_async(t, x, pc);
    case op::cp_async_mbarrier_arrive: return cp_async_mbarrier_arrive(t, x, pc);
    case op::mapa: case op::getctarank: return cluster_address(t, x);
    case op::mbarrier_init: case op::mbarrier_inval: case op::mbarrier_arrive: case op::mbarrier_arrive_drop:
    case op::mbarrier_expect_tx: case op::mbarrier_complete_tx: case op::mbarrier_pending_count:
      return mbarrier_op(t, x, pc);
    case op::cp_async_commit_group: ++copy_group_[t]; return;
    case op::cp_async_wait_group: return cp_async_wait(t, to_bits(read(t, x.ops[0]), t), false);
    case op::cp_async_wait_all: return cp_async_wait(t, 0, true);
    case op::setp: return setp(t, x);
    case op::selp: return selp(t, x);
    case op::slct: return slct(t, x);
    case op::copysign: case op::testp: return sign_and_class(t, x);
    case op::set: return set(t, x);
    case op::activemask: return write(t, x.ops[0], value::of_bits(live_lanes(t / warp_size)));
    case op::lifted: return lifted(t, x);
    default: break;
  }
  if (is_float(x.type) && x.type != vtype::tf32) return float_op(t, x);
  return integer_op(t, x);
}

// griddepcontrol.wait / griddepcontrol.launch_dependents (PTX ISA 7.8, sm_90): programmatic
// dependent launch between the grids of a stream. .wait waits until the prerequisite grids have
// completed and their memory is visible; .launch_dependents lets the runtime schedule the
// dependent grids early. gpueq checks one kernel, which has no prerequisite grid in flight and
// launches no dependent one, so both have no effect (README, "Semantics decisions").
template <value_domain D, observer O>
inline void engine<D, O>::grid_dependency_control(std::uint32_t t, const xinstr& x) {
  bool known = x.unknown_mods.size() == 1 && (p_.str(x.unknown_mods[0]) == ".wait" ||
                                               p_.str(x.unknown_mods[0]) == ".launch_dependents");
  if (!known || x.flags || !x.types.empty() || x.has_space)
    fail_at(error_kind::unsupported, t, "griddepcontrol needs exactly one action, .wait or .launch_dependents");
}

template <value_domain D, observer O>
template <fast_op Op>
inline std::uint32_t engine<D, O>::fast_step(std::uint32_t t, std::uint32_t pc) {
  const fast_form& f = p_.fast[pc];
  const lane_regs regs = lane_of(t);
  if (f.guarded) {
    const value& g = regs[f.guard];
    if (g.t != value::tag::bits) return no_fast;
    if (static_cast<bool>(g.bits & 1) == f.guard_negated) return pc + 1;
  }
  switch (Op != fast_op::none ? Op : f.op) {
    case fast_op::none: return no_fast;
    case fast_op::bra: return f.target;
    case fast_op::mov: {
      if (f.absolute) [[unlikely]] {  // a symbol's address (fixed_; provenance 0: no array, the generic path)
        const address_value& a = fixed_[pc];
        if (!a.provenance) return no_fast;
        value v = value::of_bits((a.at << f.t_shift) >> f.t_shift);
        v.provenance = a.provenance;
        regs[f.dst[0]] = v;
      } else if (f.imm) {
        regs[f.dst[0]] = value::of_bits((f.imms[0] << f.t_shift) >> f.t_shift);
      } else {
        const value& a = regs[f.src[0]];
        if (a.t == value::tag::empty) return no_fast;
        value v = a;
        if (v.t == value::tag::bits) v.bits = (v.bits << f.t_shift) >> f.t_shift;
        regs[f.dst[0]] = v;
      }
      return pc + 1;
    }
    case fast_op::mov_special:
      regs[f.dst[0]] = value::of_bits((special(t, static_cast<special_reg>(f.src[0])) << f.t_shift) >> f.t_shift);
      return pc + 1;
    case fast_op::int_add: case fast_op::int_sub: case fast_op::int_mul_lo: case fast_op::int_mul_wide:
    case fast_op::int_mad_lo: case fast_op::int_mad_wide: case fast_op::int_shl: case fast_op::int_shr:
    case fast_op::int_and: case fast_op::int_or: case fast_op::int_xor: case fast_op::int_min: case fast_op::int_max:
    case fast_op::cvt_int: case fast_op::setp_int:
      return fast_integer<Op>(regs, f) ? pc + 1 : no_fast;
    case fast_op::selp: {
      const value& p = regs[f.src[2]];
      if (p.t != value::tag::bits) return no_fast;
      std::uint32_t i = (p.bits & 1) ? 0 : 1;
      if (f.is_imm(i)) {
        regs[f.dst[0]] = value::of_bits(f.imms[i]);
      } else {
        const value& a = regs[f.src[i]];
        if (a.t == value::tag::empty) return no_fast;
        regs[f.dst[0]] = a;
      }
      return pc + 1;
    }
    case fast_op::setp_f32: case fast_op::f32_arith: return fast_float(t, regs, f) ? pc + 1 : no_fast;
    case fast_op::ld: return fast_load(t, regs, f, pc) ? pc + 1 : no_fast;
    case fast_op::st: return fast_store(t, regs, f, pc) ? pc + 1 : no_fast;
    case fast_op::ld_param: {  // load's whole scalar parameter: its value as setup made it
      const std::uint32_t i = param_at_[pc];
      if (i == ~0u) return no_fast;
      regs[f.dst[0]] = params_[i];
      return pc + 1;
    }
  }
  return no_fast;
}
template <value_domain D, observer O>
template <fast_op Op>
inline std::uint32_t engine<D, O>::warp_fast(std::uint32_t first, std::uint32_t end, std::uint32_t pc,
    std::uint32_t& ran) {
  constexpr bool integer = Op >= fast_op::int_add && Op <= fast_op::setp_int;  // fast_integer's forms
  if constexpr (Op == fast_op::ld) return warp_load(first, end, pc, ran);
  else if constexpr (Op == fast_op::f32_arith) return warp_float(first, end, pc, ran);
  else if constexpr (integer) return warp_integer<Op>(first, end, pc, ran);
  else return first;
}

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
