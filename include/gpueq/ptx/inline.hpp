// Device-function calls, inlined. nvcc keeps a helper as a `.func` and calls it (`__noinline__`
// helpers, and every helper at `-G` or `-Xcicc -O0`):
//
//   { // callseq 0, 0
//   .param .b32 param0;
//   st.param.f32 [param0+0], %f1;
//   .param .b32 retval0;
//   call.uni (retval0), helper, (param0);
//   ld.param.f32 %f2, [retval0+0];
//   }
//
// and the callee reads `ld.param [helper_param_0]`, writes `st.param [func_retval0+0]` and
// returns with `ret`. gpueq runs calls by inlining them: inline_calls() rewrites a kernel into one
// function (a copy; the module keeps the original) in which every direct call of a `.func` with a
// body is replaced by a copy of the callee's body:
//
// - the callee's registers are renamed (`%r1#helper.0`: ptx::register_spelling still gives
//   `%r1`), so the caller's registers are untouched; a function active k times on the inlining
//   stack (recursion) gets a k-th set. Calls that are never active together (sibling calls, calls
//   in a loop) share that set for the registers that every path through the callee writes before
//   it reads them: no value can flow from one activation to the next through those. A register
//   that some path may read before writing it (maybe_undefined: a must-analysis of the written
//   registers over the callee's branches; a guarded write does not count) gets a set of its own
//   per activation (`%r2#helper.0.5`), so that reading it is an uninitialized read in every
//   activation, as in a kernel, never a stale value of an earlier call;
// - `.param` space is per-thread memory of the call: the caller's `.param` variables (param0,
//   retval0) and every `.local` or `.param` variable of a callee (renamed per nesting level, like
//   its registers, and shared by the calls of one level that are never active together) become
//   `.local` variables of the kernel, and ld.param/st.param of them become ld.local/st.local.
//   Memory is not given a copy per activation as registers that may be read first are: a callee
//   that reads local or `.param` bytes it did not write reads what an earlier call of the same
//   level left there, not an uninitialized value (nvcc's output writes a call's parameters and
//   its depot before reading them); The callee's formal parameters and return parameters name the caller's
//   actual ones (`[helper_param_0]` reads `[param0]`); a register or immediate argument is stored
//   to a fresh variable first. `.reg` parameters (`.func f(.reg .b32 a)`) are moves in and out;
// - `ret` in a callee becomes a branch to the instruction after the call (its guard kept), and a
//   guarded call a branch around the inlined body; `exit` stays an exit;
// - every inlined instruction keeps its own PTX line and CUDA `.loc`, so errors and race reports
//   name the callee's lines.
//
// Threads run independently in gpueq's engine (independent thread scheduling: a warp's lanes meet
// only at collectives and barriers), so a warp's lanes reconverge after the call as they do after
// any branch, and inlining changes nothing there.
//
// Calls nest at most `depth_limit` deep (max_call_depth, 64): a call deeper than that is left in
// the kernel as it is, and the engine stops at it, if a thread reaches it, with an error naming
// the function and the line (recursion deeper than gpueq inlines). Bounded recursion within the
// limit runs. The whole inlined kernel must stay under max_inlined_instructions (a recursive
// function that calls itself twice doubles at every level): exec::decode inlines as deep as fits.
// Calls that are not inlined either, and that stop a run when reached: an indirect call (through
// a register, with a `.callprototype`) and a call of a function without a body (`.extern`, such
// as printf's vprintf).
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/support/diagnostics.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpueq::ptx {

// The deepest nesting of calls inlined (recursion deeper than this stops a run that reaches it).
inline constexpr std::uint32_t max_call_depth = 64;
// The most instructions an inlined kernel may have.
inline constexpr std::size_t max_inlined_instructions = 200'000;

inline bool has_calls(const function& f) {
  return std::any_of(f.instructions.begin(), f.instructions.end(), [](const instruction& i) { return i.op == opcode::call; });
}

// The parts of a call instruction: `call[.uni] [(rets),] callee [, (args)] [, prototype]`.
struct call_parts {
  const operand* rets = nullptr;  // a list, or null
  const operand* callee = nullptr;
  const operand* args = nullptr;  // a list, or null
};
inline call_parts parts_of_call(const instruction& i) {
  call_parts c;
  std::size_t k = 0;
  if (k < i.operands.size() && i.operands[k].kind == operand_kind::list) c.rets = &i.operands[k++];
  if (k < i.operands.size()) c.callee = &i.operands[k++];
  if (k < i.operands.size() && i.operands[k].kind == operand_kind::list) c.args = &i.operands[k];
  return c;
}

// The function named `name`: its definition (the one with a body) where the module has one, as
// nvcc declares a function before defining it when calls come first (mutual recursion), else its
// declaration; null when the module has neither.
inline const function* defined_function(const module& m, std::string_view name) {
  const function* declared = nullptr;
  for (const function& f : m.functions)
    if (m.str(f.name) == name) {
      if (f.has_body) return &f;
      if (!declared) declared = &f;
    }
  return declared;
}

// The function a direct call names, if the module has one of that name (its definition if any).
inline const function* callee_of(const module& m, const instruction& i) {
  call_parts c = parts_of_call(i);
  if (!c.callee || c.callee->kind != operand_kind::symbol) return nullptr;
  return defined_function(m, m.str(c.callee->name));
}

namespace detail {

class inliner {
 public:
  inliner(module& m, const function& entry, std::uint32_t depth_limit, std::size_t budget)
      : m_(m), entry_(entry), limit_(depth_limit), budget_(budget) {
    for (const function& f : m.functions)
      if (f.has_body && !f.entry) bodies_.emplace(f.name, &f);
    for (const variable& p : entry.params) kernel_params_.insert(p.name);
    local_ = m_.names.intern(".local");
    param_ = m_.names.intern(".param");
  }

  // The inlined kernel, or nullopt when it would exceed the budget.
  std::optional<function> run() {
    frame top{&entry_, "", {}, {}, nullptr, ""};
    for (const variable& v : entry_.locals) top.symbols.emplace(v.name, add_local(v, v.name));
    std::vector<const function*> stack{&entry_};
    std::vector<std::uint32_t> start;
    if (!emit(top, 0, stack, &start)) return std::nullopt;
    // A call that ends the kernel returns to one past the last instruction: give it an exit.
    bool past_end = false;
    for (const instruction& i : out_) past_end = past_end || (i.op == opcode::bra && i.target == out_.size());
    if (past_end) {
      instruction r;
      r.op = opcode::ret;
      if (!out_.empty()) r.line = out_.back().line, r.loc = out_.back().loc;
      out_.push_back(std::move(r));
    }
    function f;
    f.entry = entry_.entry;
    f.link = entry_.link;
    f.name = entry_.name;
    f.params = entry_.params;
    f.returns = entry_.returns;
    f.directives = entry_.directives;
    f.noreturn = entry_.noreturn;
    f.has_body = true;
    f.line = entry_.line;
    f.column = entry_.column;
    f.regs = entry_.regs;
    f.locals = std::move(locals_);
    f.instructions = std::move(out_);
    f.label_names = entry_.label_names;
    for (auto [name, at] : entry_.labels) f.labels.emplace(name, at < start.size() ? start[at] : 0);
    f.locs = entry_.locs;
    // The body order (for printing): declarations, then the instructions.
    for (std::uint32_t i = 0; i < f.regs.size(); ++i) f.body.push_back({body_item_kind::reg_decl, i});
    for (std::uint32_t i = 0; i < f.locals.size(); ++i) f.body.push_back({body_item_kind::variable, i});
    for (std::uint32_t i = 0; i < f.instructions.size(); ++i) f.body.push_back({body_item_kind::instruction, i});
    return f;
  }

 private:
  struct frame {
    const function* fn;
    std::string suffix;  // "" for the kernel itself
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> symbols;  // name in fn -> name in the kernel
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> regs;     // renamed registers (a cache)
    // fn's registers that a path may read before writing (maybe_undefined), and the suffix that
    // gives them a set of their own in this activation; null and "" for the kernel itself.
    const boost::unordered_flat_set<std::uint32_t>* undefined_at_entry = nullptr;
    std::string own_suffix;
  };

  [[noreturn]] void fail(const instruction& at, const std::string& why) const {
    throw support::diagnostic_error(support::diagnostic{m_.file, {at.line, at.column}, why});
  }

  std::uint32_t reg(frame& fr, std::uint32_t name) {
    if (fr.suffix.empty()) return name;
    auto [it, fresh] = fr.regs.try_emplace(name, 0);
    if (fresh) {
      bool own = fr.undefined_at_entry && fr.undefined_at_entry->contains(name);
      it->second = m_.names.intern(std::string(m_.str(name)) + (own ? fr.own_suffix : fr.suffix));
    }
    return it->second;
  }

  // Does an instruction of opcode `op` write its operand 0 (when that is a register, a vector or a
  // pair)? Not for the few whose operand 0 is a source; wgmma's accumulators are read and written.
  static bool writes_operand0(opcode op) {
    switch (op) {
      case opcode::bar: case opcode::barrier: case opcode::bar_warp_sync: case opcode::barrier_cluster:
      case opcode::brx_idx: case opcode::stackrestore: case opcode::nanosleep: case opcode::call:
        return false;
      default: return true;
    }
  }
  static bool reads_operand0(opcode op) { return !writes_operand0(op) || op == opcode::wgmma_mma_async; }

  // The registers of `fn` that some path from its entry may read before writing them (a guarded
  // write does not count; the `.reg` parameters are written at the entry, the `.reg` return values
  // are read at each `ret`): a forward must-analysis of the registers written so far. The
  // activations of one nesting level share the callee's other registers (every read of one sees
  // a write of the same activation, so no value flows from one activation to another); these get
  // a set of their own per activation, so that such a read is reported as it is in a kernel.
  const boost::unordered_flat_set<std::uint32_t>& maybe_undefined(const function& fn) {
    auto [cached, fresh] = undefined_.try_emplace(&fn);
    if (!fresh) return cached->second;
    boost::unordered_flat_set<std::uint32_t>& result = cached->second;
    const std::size_t n = fn.instructions.size();
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> index;
    std::vector<std::uint32_t> names;
    auto id = [&](std::uint32_t r) {
      auto [it, added] = index.try_emplace(r, static_cast<std::uint32_t>(names.size()));
      if (added) names.push_back(r);
      return it->second;
    };
    auto regs_of = [&](const operand& o, std::vector<std::uint32_t>& into, auto&& self) -> void {
      if (o.kind == operand_kind::reg || (o.kind == operand_kind::address && o.base == address_base::reg)) into.push_back(id(o.name));
      for (const operand& e : o.elems) self(e, into, self);
    };
    std::vector<std::vector<std::uint32_t>> reads(n), writes(n);
    for (std::size_t i = 0; i < n; ++i) {
      const instruction& ins = fn.instructions[i];
      if (ins.guarded) reads[i].push_back(id(ins.guard));
      if (ins.op == opcode::call) {
        call_parts c = parts_of_call(ins);
        if (c.rets && !ins.guarded) regs_of(*c.rets, writes[i], regs_of);
        if (c.callee) regs_of(*c.callee, reads[i], regs_of);
        if (c.args) regs_of(*c.args, reads[i], regs_of);
        continue;
      }
      if (ins.op == opcode::ret)
        for (const variable& r : fn.returns)
          if (r.space == state_space::reg) reads[i].push_back(id(r.name));
      for (std::size_t k = 0; k < ins.operands.size(); ++k) {
        const operand& o = ins.operands[k];
        bool destination = k == 0 && (o.kind == operand_kind::reg || o.kind == operand_kind::vector || o.kind == operand_kind::pair);
        if (!destination || reads_operand0(ins.op)) regs_of(o, reads[i], regs_of);
        if (destination && writes_operand0(ins.op) && !ins.guarded) regs_of(o, writes[i], regs_of);
      }
    }
    for (const variable& p : fn.params)
      if (p.space == state_space::reg) id(p.name);
    const std::size_t words = names.size() / 64 + 1;
    std::vector<std::vector<std::uint64_t>> in(n);  // empty: not reached yet
    std::vector<std::uint64_t> entry(words, 0);
    for (const variable& p : fn.params)
      if (p.space == state_space::reg) entry[id(p.name) / 64] |= std::uint64_t{1} << (id(p.name) % 64);
    std::vector<std::size_t> work;
    auto flow = [&](std::size_t to, const std::vector<std::uint64_t>& out) {
      if (to >= n) return;
      if (in[to].empty()) {
        in[to] = out;
        work.push_back(to);
        return;
      }
      bool changed = false;
      for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t v = in[to][w] & out[w];
        changed = changed || v != in[to][w];
        in[to][w] = v;
      }
      if (changed) work.push_back(to);
    };
    if (n > 0) flow(0, entry);
    while (!work.empty()) {
      std::size_t i = work.back();
      work.pop_back();
      const instruction& ins = fn.instructions[i];
      std::vector<std::uint64_t> out = in[i];
      for (std::uint32_t r : writes[i]) out[r / 64] |= std::uint64_t{1} << (r % 64);
      bool falls_through = true;
      if (ins.op == opcode::bra) {
        if (ins.target != instruction::no_target) flow(ins.target, out);
        falls_through = ins.guarded;
      } else if (ins.op == opcode::ret || ins.op == opcode::exit || ins.op == opcode::trap) {
        falls_through = ins.guarded;
      } else if (ins.op == opcode::brx_idx) {
        for (auto [label, at] : fn.labels) flow(at, out);
      }
      if (falls_through) flow(i + 1, out);
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!in[i].empty())
        for (std::uint32_t r : reads[i])
          if (!(in[i][r / 64] >> (r % 64) & 1u)) result.insert(names[r]);
    return result;
  }
  std::uint32_t symbol(const frame& fr, std::uint32_t name) const {
    auto it = fr.symbols.find(name);
    return it == fr.symbols.end() ? name : it->second;
  }

  static std::uint64_t byte_size(const module& m, const variable& v) {
    std::string_view t = m.str(v.type);
    std::uint64_t el = 1;
    if (t.size() > 2 && (t[1] == 'b' || t[1] == 'u' || t[1] == 's' || t[1] == 'f')) {
      std::uint64_t bits = 0;
      for (char c : t.substr(2)) {
        if (c < '0' || c > '9') {
          bits = 0;
          break;
        }
        bits = bits * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (bits >= 8) el = bits / 8;
    }
    return el * std::max<std::uint64_t>(1, v.vec) * v.elements();
  }

  // Adds a variable of the kernel named `name`: `.param` and `.local` ones as `.local` (one per
  // name: the same name declared again, as every call sequence declares param0, is one variable,
  // as large and as aligned as the largest declaration); `.shared`, `.global` and `.const` ones
  // once. Returns the name.
  std::uint32_t add_local(const variable& v, std::uint32_t name) {
    variable c = v;
    c.name = name;
    if (c.space == state_space::param) c.space = state_space::local;
    auto [it, fresh] = local_index_.try_emplace(name, static_cast<std::uint32_t>(locals_.size()));
    if (fresh) {
      locals_.push_back(std::move(c));
      return name;
    }
    variable& old = locals_[it->second];
    if (old.space != state_space::local || c.space != state_space::local) return name;  // static storage: once
    std::uint64_t a = byte_size(m_, old), b = byte_size(m_, c);
    if (a != b || old.type != c.type || old.vec != c.vec) {
      std::uint32_t align = std::max({old.align, c.align, 1u});
      old.type = m_.names.intern(".b8");
      old.vec = 0;
      old.dims = {std::max(a, b)};
      old.align = align;
    } else {
      old.align = std::max(old.align, c.align);
    }
    return name;
  }

  void rename(frame& fr, operand& o) {
    switch (o.kind) {
      case operand_kind::reg: o.name = reg(fr, o.name); break;
      case operand_kind::symbol: o.name = symbol(fr, o.name); break;
      case operand_kind::address:
        if (o.base == address_base::reg) o.name = reg(fr, o.name);
        else if (o.base == address_base::symbol) o.name = symbol(fr, o.name);
        for (operand& e : o.elems) rename(fr, e);  // tensor coordinates
        break;
      case operand_kind::vector: case operand_kind::pair: case operand_kind::list:
        for (operand& e : o.elems) rename(fr, e);
        break;
      default: break;
    }
  }

  // A copy of `i` in frame fr: registers and symbols renamed; ld/st of `.param` space that is not
  // a kernel parameter made `.local`.
  instruction copy(frame& fr, const instruction& i) {
    instruction c = i;
    if (c.guarded) c.guard = reg(fr, c.guard);
    for (operand& o : c.operands) rename(fr, o);
    if ((c.op == opcode::ld || c.op == opcode::st) && c.operands.size() == 2) {
      const operand& a = c.operands[c.op == opcode::ld ? 1 : 0];
      bool kernel_param = a.kind == operand_kind::address && a.base == address_base::symbol && kernel_params_.contains(a.name);
      if (!kernel_param)
        for (auto& mod : c.mods)
          if (mod == param_) mod = local_;
    }
    return c;
  }

  instruction jump(const instruction& at, bool guarded, bool negated, std::uint32_t guard) {
    instruction b;
    b.op = opcode::bra;
    b.line = at.line;
    b.column = at.column;
    b.loc = at.loc;
    b.inline_asm = at.inline_asm;
    b.guarded = guarded;
    b.guard_negated = negated;
    b.guard = guard;
    operand target;
    target.kind = operand_kind::symbol;
    b.operands.push_back(std::move(target));
    return b;
  }

  // `mov.T dst, src` or `st.local.T [var], src` / `ld.local.T dst, [var]` at the call `at`.
  instruction data(const instruction& at, opcode op, std::uint32_t type, std::vector<std::uint32_t> mods, operand a, operand b) {
    instruction i;
    i.op = op;
    i.line = at.line;
    i.column = at.column;
    i.loc = at.loc;
    i.inline_asm = at.inline_asm;
    for (auto md : mods) i.mods.push_back(md);
    i.mods.push_back(type);
    i.operands.push_back(std::move(a));
    i.operands.push_back(std::move(b));
    return i;
  }
  operand variable_address(std::uint32_t name) {
    operand o;
    o.kind = operand_kind::address;
    o.base = address_base::symbol;
    o.name = name;
    return o;
  }

  bool push(instruction i) {
    out_.push_back(std::move(i));
    return out_.size() <= budget_;
  }

  // Emits the body of fr.fn; `start` (if given) receives the index of each instruction's first
  // emitted instruction. Returns false when over the budget.
  bool emit(frame& fr, std::uint32_t depth, std::vector<const function*>& stack, std::vector<std::uint32_t>* start_out) {
    const function& fn = *fr.fn;
    const std::size_t n = fn.instructions.size();
    std::vector<std::uint32_t> start(n + 1, 0);
    std::vector<std::pair<std::size_t, std::uint32_t>> branches;  // (emitted bra, target in fn)
    std::vector<std::size_t> returns;                              // emitted bra of a ret
    for (std::size_t j = 0; j < n; ++j) {
      start[j] = static_cast<std::uint32_t>(out_.size());
      const instruction& ins = fn.instructions[j];
      if (ins.op == opcode::call) {
        if (!call(fr, ins, depth, stack)) return false;
        continue;
      }
      if (ins.op == opcode::ret && depth > 0) {
        instruction b = jump(ins, ins.guarded, ins.guard_negated, ins.guarded ? reg(fr, ins.guard) : 0);
        for (auto md : ins.mods) b.mods.push_back(md);  // .uni
        returns.push_back(out_.size());
        if (!push(std::move(b))) return false;
        continue;
      }
      instruction c = copy(fr, ins);
      if (c.op == opcode::bra) branches.emplace_back(out_.size(), ins.target);
      if (!push(std::move(c))) return false;
    }
    start[n] = static_cast<std::uint32_t>(out_.size());
    for (auto [k, target] : branches) out_[k].target = target <= n ? start[target] : instruction::no_target;
    for (std::size_t k : returns) out_[k].target = static_cast<std::uint32_t>(out_.size());
    if (start_out) *start_out = std::move(start);
    return true;
  }

  bool call(frame& fr, const instruction& ins, std::uint32_t depth, std::vector<const function*>& stack) {
    call_parts parts = parts_of_call(ins);
    const function* callee = nullptr;
    if (parts.callee && parts.callee->kind == operand_kind::symbol && parts.callee->value == 0)
      if (auto it = bodies_.find(parts.callee->name); it != bodies_.end()) callee = it->second;
    if (!callee || depth + 1 > limit_) return push(copy(fr, ins));  // left for the engine to refuse
    const function& g = *callee;
    std::string name(m_.str(g.name));
    std::size_t nargs = parts.args ? parts.args->elems.size() : 0, nrets = parts.rets ? parts.rets->elems.size() : 0;
    if (nargs != g.params.size() || nrets != g.returns.size())
      fail(ins, "the call of '" + name + "' passes " + std::to_string(nargs) + " argument(s) and " + std::to_string(nrets) +
                    " return value(s); the function declares " + std::to_string(g.params.size()) + " and " +
                    std::to_string(g.returns.size()));
    frame cf{&g, "", {}, {}, &maybe_undefined(g), ""};
    std::size_t active = static_cast<std::size_t>(std::count(stack.begin(), stack.end(), &g));
    cf.suffix = "#" + name + "." + std::to_string(active);
    if (!cf.undefined_at_entry->empty()) cf.own_suffix = cf.suffix + "." + std::to_string(activations_++);
    for (const variable& v : g.locals) {
      bool per_call = v.space == state_space::local || v.space == state_space::param;
      cf.symbols.emplace(v.name, add_local(v, per_call ? m_.names.intern(std::string(m_.str(v.name)) + cf.suffix) : v.name));
    }
    // A guarded call: a branch around it (the guard read in the caller's frame).
    std::size_t skip = out_.size();
    if (ins.guarded && !push(jump(ins, true, !ins.guard_negated, reg(fr, ins.guard)))) return false;
    // Arguments in.
    std::vector<instruction> after;  // return values out
    auto bind = [&](const variable& formal, const operand& actual, bool in) {
      operand a = actual;
      rename(fr, a);
      if (formal.space == state_space::reg) {
        operand r;
        r.kind = operand_kind::reg;
        r.name = reg(cf, formal.name);
        if (in) return push(data(ins, opcode::mov, formal.type, {}, std::move(r), std::move(a)));
        after.push_back(data(ins, opcode::mov, formal.type, {}, std::move(a), std::move(r)));
        return true;
      }
      if (a.kind == operand_kind::symbol && a.value == 0) {  // a .param variable of the caller
        cf.symbols[formal.name] = a.name;
        return true;
      }
      if (!formal.dims.empty())
        fail(ins, "the call of '" + name + "' passes a register or constant for the array parameter '" +
                      std::string(m_.str(formal.name)) + "'");
      std::uint32_t var = add_local(formal, m_.names.intern(std::string(m_.str(formal.name)) + cf.suffix));
      cf.symbols[formal.name] = var;
      if (in) return push(data(ins, opcode::st, formal.type, {local_}, variable_address(var), std::move(a)));
      after.push_back(data(ins, opcode::ld, formal.type, {local_}, std::move(a), variable_address(var)));
      return true;
    };
    for (std::size_t i = 0; i < nargs; ++i)
      if (!bind(g.params[i], parts.args->elems[i], true)) return false;
    for (std::size_t i = 0; i < nrets; ++i) bind(g.returns[i], parts.rets->elems[i], false);
    stack.push_back(&g);
    bool ok = emit(cf, depth + 1, stack, nullptr);
    stack.pop_back();
    if (!ok) return false;
    for (instruction& i : after)
      if (!push(std::move(i))) return false;
    if (ins.guarded) out_[skip].target = static_cast<std::uint32_t>(out_.size());
    return true;
  }

  module& m_;
  const function& entry_;
  std::uint32_t limit_;
  std::size_t budget_;
  boost::unordered_flat_map<std::uint32_t, const function*> bodies_;
  boost::unordered_flat_set<std::uint32_t> kernel_params_;
  std::uint32_t local_ = 0, param_ = 0;
  std::vector<instruction> out_;
  std::vector<variable> locals_;
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> local_index_;
  // maybe_undefined's sets (node-based: frames keep pointers to them while others are added)
  std::unordered_map<const function*, boost::unordered_flat_set<std::uint32_t>> undefined_;
  std::uint64_t activations_ = 0;  // inlined calls so far: each a suffix for its own registers
};

}  // namespace detail

// A kernel with its calls inlined, and how deep they were.
struct inlined_kernel {
  function flat;
  std::uint32_t depth_limit = 0;  // calls nested deeper than this were left in place
};

// Inlines the calls of `entry` (a function of `m`; new names are interned in m's table) as deep
// as max_call_depth allows within max_inlined_instructions; when the full depth does not fit, the
// largest depth that does (0: no call inlined).
inline inlined_kernel inline_calls(module& m, const function& entry, std::uint32_t depth_limit = max_call_depth,
                                   std::size_t budget = max_inlined_instructions) {
  if (auto f = detail::inliner(m, entry, depth_limit, budget).run()) return {std::move(*f), depth_limit};
  std::uint32_t lo = 0, hi = depth_limit;  // lo fits (depth 0 inlines nothing), hi does not
  while (hi - lo > 1) {
    std::uint32_t mid = lo + (hi - lo) / 2;
    if (detail::inliner(m, entry, mid, budget).run()) lo = mid;
    else hi = mid;
  }
  auto f = detail::inliner(m, entry, lo, lo == 0 ? ~std::size_t{0} : budget).run();
  return {std::move(*f), lo};
}

}  // namespace gpueq::ptx
