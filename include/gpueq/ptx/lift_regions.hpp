// Lifting of multi-block math sequences: the double-precision `log` and `exp` that nvcc inlines
// from libdevice. Unlike the float idioms of lift.hpp (one basic block, a DAG of a dozen
// instructions), these take the exponent and mantissa of x apart with bit operations and branch
// on them (subnormal scaling, the mantissa's range, infinities, zero, overflow), so they cannot
// be matched instruction by instruction along one block, and nvcc lays them out a little
// differently in each kernel: register copies where x stays live, the order of the two word
// extractions, one extraction of x's high word shared with a neighbouring `exp` (CSE).
//
// Recognition compares *meanings*, not text. A region of the kernel (from the start of the basic
// block of a candidate first branch to the join of its last branch) is evaluated structurally
// along every path through it: each register holds a node of a hash-consed value graph (an
// instruction's full spelling applied to its operands' nodes; copies are the same node, `mov.b64
// {lo, hi}, x` makes two projections of x), and each path records its branch conditions. The same
// is done once for a template: the PTX nvcc 13 emits for `*y = log(x)` (sm_80) in a kernel of its
// own, kept below. The region is lifted when, path by path in the same order, its branch
// conditions and the value of one register at the join are the template's, with the template's
// x standing for one value of the region. Equal graphs mean the same function of x, bit for bit
// (every operation, modifier and constant is the same), so the rewrite is sound whatever the
// libdevice code does; anything else (another nvcc's sequence, a guarded instruction, a store or
// a call inside, an extra branch) is not lifted, and the instructions run as they are.
//
// The rewrite: the region's branchy part becomes one `gpueq.lifted.<fn>.f64 r, x` at the first
// branch; instructions before it that only fed the sequence go, the others (address arithmetic,
// the load of x, a word of x another sequence reads) stay. The region is lifted only when no
// branch from outside enters it, no register it defines other than r is read outside it, and x
// is in a register where the first branch stands. Afterwards the instructions that computed
// values only the removed code read (such as x's high word once both neighbours are lifted) go.
#pragma once

#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/parser.hpp>

#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::ptx {
namespace detail {

// A hash-consed graph of the values a region computes.
class value_graph {
 public:
  enum class vk : std::uint8_t {
    imm,     // an immediate: op is its kind ("i", "f", "d"), value its bits
    opaque,  // a value the graph does not look into: value is an instruction index (its result),
             // or a live-in register (op "in", value the register); never equal to another
    op,      // op (the instruction's spelling: opcode and modifiers) applied to kids
    part,    // word `value` of kids[0] (mov.b64 {lo, hi}, x), or the negation "!" of a predicate
  };
  struct vnode {
    vk k;
    std::string op;
    std::int64_t value = 0;
    std::vector<std::uint32_t> kids;
  };
  std::uint32_t intern(vk k, std::string op, std::int64_t value, std::vector<std::uint32_t> kids) {
    std::string key;
    key.reserve(op.size() + 16 + 6 * kids.size());
    key += static_cast<char>('0' + static_cast<int>(k));
    key += op;
    key += '|';
    key += std::to_string(value);
    for (auto c : kids) {
      key += ',';
      key += std::to_string(c);
    }
    auto [it, fresh] = index_.try_emplace(std::move(key), static_cast<std::uint32_t>(nodes_.size()));
    if (fresh) nodes_.push_back(vnode{k, std::move(op), value, std::move(kids)});
    return it->second;
  }
  const vnode& at(std::uint32_t n) const { return nodes_[n]; }

 private:
  std::vector<vnode> nodes_;
  boost::unordered_flat_map<std::string, std::uint32_t> index_;
};

// One path through a region: its branch decisions (predicate node, value it had) and every
// register it wrote, with the value at the region's end.
struct region_path {
  std::vector<std::pair<std::uint32_t, bool>> conditions;
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> regs;
};

// The registers an operand names (its own, an address's base, a vector's elements).
template <class F>
void regs_in(const operand& o, F&& f) {
  if (o.kind == operand_kind::reg) f(o.name);
  else if (o.kind == operand_kind::address && o.base == address_base::reg) f(o.name);
  for (auto& e : o.elems) regs_in(e, f);
}

// Opcodes without side effects whose result the value graph can name.
inline bool pure_opcode(opcode op) {
  switch (op) {
    case opcode::mov: case opcode::add: case opcode::sub: case opcode::mul: case opcode::mad: case opcode::fma:
    case opcode::neg: case opcode::abs: case opcode::min: case opcode::max: case opcode::and_: case opcode::or_:
    case opcode::xor_: case opcode::not_: case opcode::shl: case opcode::shr: case opcode::setp: case opcode::selp:
    case opcode::cvt: case opcode::rcp: case opcode::sqrt: case opcode::div: case opcode::copysign:
      return true;
    default: return false;
  }
}

// Structural evaluation of instructions [s, e) of f along every path (forward branches only, all
// of them landing in (i, e]). Instructions before `b0` may be anything: those that are not pure
// give their results opaque values. From b0 on, only pure unguarded instructions and branches
// are allowed. `at_b0` receives the registers written before b0 (the state where b0 stands).
class region_evaluator {
 public:
  region_evaluator(const module& m, const function& f, const std::vector<bool>& dead, value_graph& g)
      : m_(m), f_(f), dead_(dead), g_(g) {}

  bool run(std::uint32_t s, std::uint32_t b0, std::uint32_t e, std::vector<region_path>& out,
           boost::unordered_flat_map<std::uint32_t, std::uint32_t>& at_b0) {
    s_ = s, b0_ = b0, e_ = e;
    out.clear();
    region_path p;
    for (std::uint32_t i = s; i < b0; ++i)
      if (!dead_[i] && !step(i, p, true)) return false;
    at_b0 = p.regs;
    return walk(b0, std::move(p), out);
  }

  // Registers defined once in the whole function, by an unguarded move of an immediate: a
  // constant nvcc materialized once and shared between sequences (as lift.hpp's matcher reads them).
  void set_constants(const boost::unordered_flat_map<std::uint32_t, operand>* constants) { constants_ = constants; }

  std::uint32_t read(const region_path& p, std::uint32_t reg) {
    auto it = p.regs.find(reg);
    if (it != p.regs.end()) return it->second;
    if (constants_)
      if (auto c = constants_->find(reg); c != constants_->end())
        if (auto n = operand_node(p, c->second)) return *n;
    return g_.intern(value_graph::vk::opaque, "in", reg, {});
  }

 private:
  static constexpr std::size_t max_paths = 256;

  bool walk(std::uint32_t i, region_path p, std::vector<region_path>& out) {
    for (;; ++i) {
      if (i == e_) {
        if (out.size() >= max_paths) return false;
        out.push_back(std::move(p));
        return true;
      }
      if (i > e_ || dead_[i]) {
        if (i > e_) return false;
        continue;
      }
      const instruction& ins = f_.instructions[i];
      if (ins.op != opcode::bra) {
        if (!step(i, p, false)) return false;
        continue;
      }
      const std::uint32_t t = ins.target;
      if (t == instruction::no_target || t <= i || t > e_) return false;
      if (!ins.guarded) {
        i = t - 1;
        continue;
      }
      const std::uint32_t c = read(p, ins.guard);
      region_path taken = p;
      taken.conditions.emplace_back(c, !ins.guard_negated);
      if (!walk(t, std::move(taken), out)) return false;
      p.conditions.emplace_back(c, ins.guard_negated);
    }
  }

  std::optional<std::uint32_t> operand_node(const region_path& p, const operand& o) {
    switch (o.kind) {
      case operand_kind::reg: {
        std::uint32_t n = read(p, o.name);
        return o.negated ? g_.intern(value_graph::vk::part, "!", 0, {n}) : n;
      }
      case operand_kind::imm_int: return g_.intern(value_graph::vk::imm, "i", o.value, {});
      case operand_kind::imm_f32: return g_.intern(value_graph::vk::imm, "f", o.value, {});
      case operand_kind::imm_f64: return g_.intern(value_graph::vk::imm, "d", o.value, {});
      default: return std::nullopt;
    }
  }

  // One non-branch instruction. Before b0 (`entry`) anything is allowed: what the graph cannot
  // name gets an opaque value per instruction.
  bool step(std::uint32_t i, region_path& p, bool entry) {
    const instruction& ins = f_.instructions[i];
    if (ins.op == opcode::bra || ins.op == opcode::ret || ins.op == opcode::exit) return false;
    if (ins.operands.empty()) return entry;
    const operand& d = ins.operands[0];
    auto opaque = [&]() {
      if (!entry) return false;
      if (ins.op == opcode::st) return true;  // no register result
      std::int64_t k = 0;
      regs_in(d, [&](std::uint32_t r) {
        p.regs[r] = g_.intern(value_graph::vk::opaque, "ins", static_cast<std::int64_t>(i) * 8 + k++, {});
      });
      return true;
    };
    if (!pure_opcode(ins.op) || ins.guarded) return opaque();
    if (ins.op == opcode::mov && d.kind == operand_kind::vector) {  // mov.b64 {lo, hi}, x
      if (ins.operands.size() != 2) return opaque();
      auto x = operand_node(p, ins.operands[1]);
      if (!x) return opaque();
      std::string op = spelling(ins);
      for (std::size_t k = 0; k < d.elems.size(); ++k)
        if (d.elems[k].kind == operand_kind::reg)
          p.regs[d.elems[k].name] = g_.intern(value_graph::vk::part, op, static_cast<std::int64_t>(k), {*x});
      return true;
    }
    if (d.kind != operand_kind::reg) return opaque();
    if (ins.op == opcode::mov && ins.operands.size() == 2) {
      const operand& src = ins.operands[1];
      if (src.kind == operand_kind::vector) {  // mov.b64 x, {lo, hi}
        std::vector<std::uint32_t> kids;
        for (auto& el : src.elems) {
          auto n = operand_node(p, el);
          if (!n) return opaque();
          kids.push_back(*n);
        }
        p.regs[d.name] = g_.intern(value_graph::vk::op, spelling(ins), 0, std::move(kids));
        return true;
      }
      auto n = operand_node(p, src);  // a copy or a constant: the same node (mov copies bits)
      if (!n) return opaque();
      p.regs[d.name] = *n;
      return true;
    }
    std::vector<std::uint32_t> kids;
    for (std::size_t k = 1; k < ins.operands.size(); ++k) {
      auto n = operand_node(p, ins.operands[k]);
      if (!n) return opaque();
      kids.push_back(*n);
    }
    p.regs[d.name] = g_.intern(value_graph::vk::op, spelling(ins), 0, std::move(kids));
    return true;
  }

  std::string spelling(const instruction& ins) const {
    std::string s(name(ins.op));
    for (auto id : ins.mods) s += m_.str(id);
    return s;
  }

  const module& m_;
  const function& f_;
  const std::vector<bool>& dead_;
  value_graph& g_;
  const boost::unordered_flat_map<std::uint32_t, operand>* constants_ = nullptr;
  std::uint32_t s_ = 0, b0_ = 0, e_ = 0;
};

// A template: the meaning of nvcc's sequence for fn, evaluated once from its PTX.
struct region_template {
  std::string_view name;
  real_function fn;
  std::uint64_t anchor = 0;  // an f64 constant the sequence holds (a cheap first test)
  value_graph g;
  std::vector<region_path> paths;
  std::vector<std::uint32_t> results;  // the result's node on each path
  std::uint32_t x = 0;                 // the node of the argument
  std::size_t branches = 0;
};

// nvcc 13.0, sm_80: `extern "C" __global__ void t(double x, double* y) { *y = fn(x); }`.
inline constexpr std::string_view libdevice_log_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry t_log(.param .f64 t_log_param_0, .param .u64 t_log_param_1)
{
	.reg .pred %p<5>;
	.reg .f32 %f<2>;
	.reg .b32 %r<28>;
	.reg .f64 %fd<59>;
	.reg .b64 %rd<3>;
	ld.param.f64 %fd56, [t_log_param_0];
	ld.param.u64 %rd1, [t_log_param_1];
	{ .reg .b32 %temp; mov.b64 {%r25, %temp}, %fd56; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r24}, %fd56; }
	setp.gt.s32 %p1, %r24, 1048575;
	mov.u32 %r26, -1023;
	@%p1 bra $L__BB0_2;
	mul.f64 %fd56, %fd56, 0d4350000000000000;
	{ .reg .b32 %temp; mov.b64 {%temp, %r24}, %fd56; }
	{ .reg .b32 %temp; mov.b64 {%r25, %temp}, %fd56; }
	mov.u32 %r26, -1077;
$L__BB0_2:
	add.s32 %r13, %r24, -1;
	setp.lt.u32 %p2, %r13, 2146435071;
	@%p2 bra $L__BB0_4;
	bra.uni $L__BB0_3;
$L__BB0_4:
	shr.u32 %r15, %r24, 20;
	add.s32 %r27, %r26, %r15;
	and.b32 %r16, %r24, -2146435073;
	or.b32 %r17, %r16, 1072693248;
	mov.b64 %fd57, {%r25, %r17};
	setp.lt.s32 %p4, %r17, 1073127583;
	@%p4 bra $L__BB0_6;
	{ .reg .b32 %temp; mov.b64 {%r18, %temp}, %fd57; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r19}, %fd57; }
	add.s32 %r20, %r19, -1048576;
	mov.b64 %fd57, {%r18, %r20};
	add.s32 %r27, %r27, 1;
$L__BB0_6:
	add.f64 %fd12, %fd57, 0d3FF0000000000000;
	mov.f64 %fd13, 0d3FF0000000000000;
	rcp.approx.ftz.f64 %fd14, %fd12;
	neg.f64 %fd15, %fd12;
	fma.rn.f64 %fd16, %fd15, %fd14, %fd13;
	fma.rn.f64 %fd17, %fd16, %fd16, %fd16;
	fma.rn.f64 %fd18, %fd17, %fd14, %fd14;
	add.f64 %fd19, %fd57, 0dBFF0000000000000;
	mul.f64 %fd20, %fd19, %fd18;
	fma.rn.f64 %fd21, %fd19, %fd18, %fd20;
	mul.f64 %fd22, %fd21, %fd21;
	mov.f64 %fd23, 0d3ED0EE258B7A8B04;
	mov.f64 %fd24, 0d3EB1380B3AE80F1E;
	fma.rn.f64 %fd25, %fd24, %fd22, %fd23;
	mov.f64 %fd26, 0d3EF3B2669F02676F;
	fma.rn.f64 %fd27, %fd25, %fd22, %fd26;
	mov.f64 %fd28, 0d3F1745CBA9AB0956;
	fma.rn.f64 %fd29, %fd27, %fd22, %fd28;
	mov.f64 %fd30, 0d3F3C71C72D1B5154;
	fma.rn.f64 %fd31, %fd29, %fd22, %fd30;
	mov.f64 %fd32, 0d3F624924923BE72D;
	fma.rn.f64 %fd33, %fd31, %fd22, %fd32;
	mov.f64 %fd34, 0d3F8999999999A3C4;
	fma.rn.f64 %fd35, %fd33, %fd22, %fd34;
	mov.f64 %fd36, 0d3FB5555555555554;
	fma.rn.f64 %fd37, %fd35, %fd22, %fd36;
	sub.f64 %fd38, %fd19, %fd21;
	add.f64 %fd39, %fd38, %fd38;
	neg.f64 %fd40, %fd21;
	fma.rn.f64 %fd41, %fd40, %fd19, %fd39;
	mul.f64 %fd42, %fd18, %fd41;
	mul.f64 %fd43, %fd22, %fd37;
	fma.rn.f64 %fd44, %fd43, %fd21, %fd42;
	xor.b32 %r21, %r27, -2147483648;
	mov.u32 %r22, -2147483648;
	mov.u32 %r23, 1127219200;
	mov.b64 %fd45, {%r21, %r23};
	mov.b64 %fd46, {%r22, %r23};
	sub.f64 %fd47, %fd45, %fd46;
	mov.f64 %fd48, 0d3FE62E42FEFA39EF;
	fma.rn.f64 %fd49, %fd47, %fd48, %fd21;
	neg.f64 %fd50, %fd47;
	fma.rn.f64 %fd51, %fd50, %fd48, %fd49;
	sub.f64 %fd52, %fd51, %fd21;
	sub.f64 %fd53, %fd44, %fd52;
	mov.f64 %fd54, 0d3C7ABC9E3B39803F;
	fma.rn.f64 %fd55, %fd47, %fd54, %fd53;
	add.f64 %fd58, %fd49, %fd55;
	bra.uni $L__BB0_7;
$L__BB0_3:
	mov.f64 %fd10, 0d7FF0000000000000;
	fma.rn.f64 %fd11, %fd56, %fd10, %fd10;
	{ .reg .b32 %temp; mov.b64 {%temp, %r14}, %fd56; }
	mov.b32 %f1, %r14;
	setp.eq.f32 %p3, %f1, 0f00000000;
	selp.f64 %fd58, 0dFFF0000000000000, %fd11, %p3;
$L__BB0_7:
	cvta.to.global.u64 %rd2, %rd1;
	st.global.f64 [%rd2], %fd58;
	ret;
}
)";

inline constexpr std::string_view libdevice_exp_f64 = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry t_exp(.param .f64 t_exp_param_0, .param .u64 t_exp_param_1)
{
	.reg .pred %p<4>;
	.reg .f32 %f<3>;
	.reg .b32 %r<16>;
	.reg .f64 %fd<41>;
	.reg .b64 %rd<3>;
	ld.param.f64 %fd5, [t_exp_param_0];
	ld.param.u64 %rd1, [t_exp_param_1];
	mov.f64 %fd6, 0d4338000000000000;
	mov.f64 %fd7, 0d3FF71547652B82FE;
	fma.rn.f64 %fd8, %fd5, %fd7, %fd6;
	{ .reg .b32 %temp; mov.b64 {%r1, %temp}, %fd8; }
	mov.f64 %fd9, 0dC338000000000000;
	add.rn.f64 %fd10, %fd8, %fd9;
	mov.f64 %fd11, 0dBFE62E42FEFA39EF;
	fma.rn.f64 %fd12, %fd10, %fd11, %fd5;
	mov.f64 %fd13, 0dBC7ABC9E3B39803F;
	fma.rn.f64 %fd14, %fd10, %fd13, %fd12;
	mov.f64 %fd15, 0d3E928AF3FCA213EA;
	mov.f64 %fd16, 0d3E5ADE1569CE2BDF;
	fma.rn.f64 %fd17, %fd16, %fd14, %fd15;
	mov.f64 %fd18, 0d3EC71DEE62401315;
	fma.rn.f64 %fd19, %fd17, %fd14, %fd18;
	mov.f64 %fd20, 0d3EFA01997C89EB71;
	fma.rn.f64 %fd21, %fd19, %fd14, %fd20;
	mov.f64 %fd22, 0d3F2A01A014761F65;
	fma.rn.f64 %fd23, %fd21, %fd14, %fd22;
	mov.f64 %fd24, 0d3F56C16C1852B7AF;
	fma.rn.f64 %fd25, %fd23, %fd14, %fd24;
	mov.f64 %fd26, 0d3F81111111122322;
	fma.rn.f64 %fd27, %fd25, %fd14, %fd26;
	mov.f64 %fd28, 0d3FA55555555502A1;
	fma.rn.f64 %fd29, %fd27, %fd14, %fd28;
	mov.f64 %fd30, 0d3FC5555555555511;
	fma.rn.f64 %fd31, %fd29, %fd14, %fd30;
	mov.f64 %fd32, 0d3FE000000000000B;
	fma.rn.f64 %fd33, %fd31, %fd14, %fd32;
	mov.f64 %fd34, 0d3FF0000000000000;
	fma.rn.f64 %fd35, %fd33, %fd14, %fd34;
	fma.rn.f64 %fd36, %fd35, %fd14, %fd34;
	{ .reg .b32 %temp; mov.b64 {%r2, %temp}, %fd36; }
	{ .reg .b32 %temp; mov.b64 {%temp, %r3}, %fd36; }
	shl.b32 %r4, %r1, 20;
	add.s32 %r5, %r3, %r4;
	mov.b64 %fd40, {%r2, %r5};
	{ .reg .b32 %temp; mov.b64 {%temp, %r6}, %fd5; }
	mov.b32 %f2, %r6;
	abs.f32 %f1, %f2;
	setp.lt.f32 %p1, %f1, 0f4086232B;
	@%p1 bra $L__BB1_3;
	setp.lt.f64 %p2, %fd5, 0d0000000000000000;
	add.f64 %fd37, %fd5, 0d7FF0000000000000;
	selp.f64 %fd40, 0d0000000000000000, %fd37, %p2;
	setp.geu.f32 %p3, %f1, 0f40874800;
	@%p3 bra $L__BB1_3;
	shr.u32 %r7, %r1, 31;
	add.s32 %r8, %r1, %r7;
	shr.s32 %r9, %r8, 1;
	shl.b32 %r10, %r9, 20;
	add.s32 %r11, %r3, %r10;
	mov.b64 %fd38, {%r2, %r11};
	sub.s32 %r12, %r1, %r9;
	shl.b32 %r13, %r12, 20;
	add.s32 %r14, %r13, 1072693248;
	mov.u32 %r15, 0;
	mov.b64 %fd39, {%r15, %r14};
	mul.f64 %fd40, %fd38, %fd39;
$L__BB1_3:
	cvta.to.global.u64 %rd2, %rd1;
	st.global.f64 [%rd2], %fd40;
	ret;
}
)";

// Builds a template from its PTX: the region runs from the kernel's start to the join of its
// branches; the result is the register the kernel stores, x the loaded f64 parameter.
inline region_template make_region_template(std::string_view name, real_function fn, std::uint64_t anchor,
                                            std::string_view text) {
  region_template t;
  t.name = name;
  t.fn = fn;
  t.anchor = anchor;
  module m = parse(text, std::string(name) + " template");
  const function& f = m.functions.at(0);
  std::vector<bool> dead(f.instructions.size(), false);
  std::uint32_t b0 = 0, e = 0, x_at = 0;
  while (f.instructions[b0].op != opcode::bra) ++b0;
  while (f.instructions[x_at].op != opcode::ld) ++x_at;
  std::uint32_t st = b0;
  while (f.instructions[st].op != opcode::st) ++st;
  for (std::uint32_t i = b0; i < st; ++i)
    if (f.instructions[i].op == opcode::bra) {
      ++t.branches;
      e = std::max(e, f.instructions[i].target);  // the join
    }
  region_evaluator ev(m, f, dead, t.g);
  boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
  if (!ev.run(0, b0, e, t.paths, at_b0)) throw std::logic_error("region template " + std::string(name) + " does not evaluate");
  const std::uint32_t r = f.instructions[st].operands[1].name;
  for (auto& p : t.paths) t.results.push_back(ev.read(p, r));
  t.x = t.g.intern(value_graph::vk::opaque, "ins", static_cast<std::int64_t>(x_at) * 8, {});
  return t;
}

inline const std::vector<region_template>& region_templates() {
  static const std::vector<region_template> ts = [] {
    std::vector<region_template> v;
    v.push_back(make_region_template("log (f64)", real_function::log, 0x3ED0EE258B7A8B04ull, libdevice_log_f64));
    v.push_back(make_region_template("exp (f64)", real_function::exp, 0x3E5ADE1569CE2BDFull, libdevice_exp_f64));
    return v;
  }();
  return ts;
}

// Template graph against the region's graph, with the template's x bound to one region node.
class graph_matcher {
 public:
  graph_matcher(const region_template& t, const value_graph& c) : t_(t), c_(c) {}
  bool match(std::uint32_t tn, std::uint32_t cn) {
    if (tn == t_.x) {
      if (!x_) x_ = cn;
      return *x_ == cn;
    }
    const std::uint64_t key = (std::uint64_t{tn} << 32) | cn;
    if (same_.contains(key)) return true;
    const auto &a = t_.g.at(tn), &b = c_.at(cn);
    if (a.k != b.k || a.k == value_graph::vk::opaque || a.op != b.op || a.value != b.value ||
        a.kids.size() != b.kids.size())
      return false;
    for (std::size_t k = 0; k < a.kids.size(); ++k)
      if (!match(a.kids[k], b.kids[k])) return false;
    same_.insert(key);
    return true;
  }
  std::optional<std::uint32_t> x() const { return x_; }

 private:
  const region_template& t_;
  const value_graph& c_;
  std::optional<std::uint32_t> x_;
  boost::unordered_flat_set<std::uint64_t> same_;
};

// One lifted region, for the report.
struct region_lift {
  const region_template* t = nullptr;
  std::uint32_t at = 0;  // the lifted instruction (before compaction)
  std::vector<std::uint32_t> lines;
};

// Lifts every region of f that matches a template; marks removed instructions in `dead`.
class region_lifter {
 public:
  region_lifter(module& m, function& f, std::vector<bool>& dead) : m_(m), f_(f), dead_(dead) {}

  std::vector<region_lift> run() {
    std::vector<region_lift> done;
    boost::unordered_flat_set<std::uint64_t> f64s;
    for (auto& ins : f_.instructions)
      for (auto& o : ins.operands)
        if (o.kind == operand_kind::imm_f64) f64s.insert(static_cast<std::uint64_t>(o.value));
    for (const region_template& t : region_templates()) {
      if (!f64s.contains(t.anchor)) continue;
      for (std::uint32_t b0 = 0; b0 < f_.instructions.size(); ++b0)
        if (!dead_[b0] && f_.instructions[b0].op == opcode::bra && f_.instructions[b0].guarded)
          if (auto r = try_at(t, b0)) done.push_back(std::move(*r));
    }
    return done;
  }

 private:
  std::optional<region_lift> try_at(const region_template& t, std::uint32_t b0) {
    const auto& ins = f_.instructions;
    const std::uint32_t n = static_cast<std::uint32_t>(ins.size());
    // The join: the furthest target of the template's number of branches from b0 on.
    std::uint32_t e = 0, seen = 0, i = b0;
    for (; i < n && seen < t.branches; ++i) {
      if (dead_[i] || ins[i].op != opcode::bra) continue;
      if (ins[i].target == instruction::no_target || ins[i].target <= i) return std::nullopt;
      e = std::max(e, ins[i].target);
      ++seen;
    }
    if (seen != t.branches || e < i) return std::nullopt;
    // Who branches where: the region is entered only at its start.
    boost::unordered_flat_set<std::uint32_t> targets;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (dead_[k] || ins[k].op != opcode::bra) continue;
      targets.insert(ins[k].target);
      const bool inside = k >= b0 && k < e;
      if (inside && (ins[k].target <= k || ins[k].target > e)) return std::nullopt;
      if (!inside && ins[k].target > b0 && ins[k].target < e) return std::nullopt;
    }
    // The start of b0's basic block (at most 512 instructions back).
    std::uint32_t s = b0;
    while (s > 0 && b0 - s < 512 && !targets.contains(s)) {
      std::uint32_t k = s - 1;
      if (!dead_[k] && (ins[k].op == opcode::bra || ins[k].op == opcode::ret || ins[k].op == opcode::exit)) break;
      s = k;
    }
    value_graph g;
    region_evaluator ev(m_, f_, dead_, g);
    index_constants();
    ev.set_constants(&constants_);
    std::vector<region_path> paths;
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> at_b0;
    if (!ev.run(s, b0, e, paths, at_b0) || paths.size() != t.paths.size()) return std::nullopt;
    for (std::size_t k = 0; k < paths.size(); ++k)
      if (paths[k].conditions.size() != t.paths[k].conditions.size()) return std::nullopt;
    // The result: a register whose value on every path is the template's.
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t k = s; k < e; ++k)
      if (!dead_[k] && !ins[k].operands.empty() && ins[k].operands[0].kind == operand_kind::reg && ins[k].op != opcode::st)
        candidates.push_back(ins[k].operands[0].name);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (std::uint32_t r : candidates) {
      graph_matcher mt(t, g);
      bool ok = true;
      for (std::size_t k = 0; k < paths.size() && ok; ++k) {
        for (std::size_t c = 0; c < paths[k].conditions.size() && ok; ++c)
          ok = paths[k].conditions[c].second == t.paths[k].conditions[c].second &&
               mt.match(t.paths[k].conditions[c].first, paths[k].conditions[c].first);
        ok = ok && mt.match(t.results[k], ev.read(paths[k], r));
      }
      if (!ok || !mt.x()) continue;
      if (auto done = rewrite(t, s, b0, e, r, *mt.x(), at_b0, g)) return done;
    }
    return std::nullopt;
  }

  void index_constants() {
    constants_.clear();
    boost::unordered_flat_map<std::uint32_t, std::uint32_t> defs;
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k)
      if (!dead_[k]) for_writes(f_.instructions[k], [&](std::uint32_t w) { ++defs[w]; });
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      const instruction& in = f_.instructions[k];
      if (dead_[k] || in.op != opcode::mov || in.guarded || in.operands.size() != 2 ||
          in.operands[0].kind != operand_kind::reg || defs[in.operands[0].name] != 1)
        continue;
      const operand_kind c = in.operands[1].kind;
      if (c == operand_kind::imm_int || c == operand_kind::imm_f32 || c == operand_kind::imm_f64)
        constants_[in.operands[0].name] = in.operands[1];
    }
  }

  // Which live instructions read each register.
  void index_reads() {
    reads_.clear();
    for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
      if (dead_[k]) continue;
      for_reads(f_.instructions[k], [&](std::uint32_t r) { reads_[r].push_back(k); });
    }
  }
  template <class F>
  static void for_reads(const instruction& ins, F&& f) {
    if (ins.guarded) f(ins.guard);
    const bool writes_first = ins.op != opcode::st && !ins.operands.empty() &&
                              (ins.operands[0].kind == operand_kind::reg || ins.operands[0].kind == operand_kind::vector);
    for (std::size_t o = writes_first ? 1 : 0; o < ins.operands.size(); ++o) regs_in(ins.operands[o], f);
  }
  static void for_writes(const instruction& ins, auto&& f) {
    if (ins.op == opcode::st || ins.op == opcode::bra || ins.operands.empty()) return;
    const operand& d = ins.operands[0];
    if (d.kind == operand_kind::reg || d.kind == operand_kind::vector) regs_in(d, f);
  }

  std::optional<region_lift> rewrite(const region_template& t, std::uint32_t s, std::uint32_t b0, std::uint32_t e,
                                     std::uint32_t r, std::uint32_t x, const boost::unordered_flat_map<std::uint32_t, std::uint32_t>& at_b0,
                                     value_graph& g) {
    auto& ins = f_.instructions;
    // x must be in a register where b0 stands.
    std::optional<std::uint32_t> xr;
    for (auto& [reg, node] : at_b0)
      if (node == x && (!xr || reg < *xr)) xr = reg;
    if (!xr) {  // x is a register live into the region, not written before b0
      const auto& xn = g.at(x);
      if (xn.k == value_graph::vk::opaque && xn.op == "in" && !at_b0.contains(static_cast<std::uint32_t>(xn.value)))
        xr = static_cast<std::uint32_t>(xn.value);
    }
    if (!xr) return std::nullopt;
    index_reads();
    const auto size = static_cast<std::uint32_t>(ins.size());
    std::vector<bool> removed(ins.size(), false);
    for (std::uint32_t k = b0; k < e; ++k) removed[k] = !dead_[k];
    auto read_outside = [&](std::uint32_t reg, std::uint32_t from, std::uint32_t to) {
      auto it = reads_.find(reg);
      if (it == reads_.end()) return false;
      for (auto k : it->second)
        if (!removed[k] && k >= from && k < to) return true;
      return false;
    };
    // Before b0: a pure instruction goes when only removed instructions read what it writes
    // (its write of r is dead anyway when nothing reads it before b0); x's register stays.
    for (std::uint32_t k = b0; k-- > s;) {
      if (dead_[k] || !pure_opcode(ins[k].op) || ins[k].guarded || ins[k].operands.empty() ||
          (ins[k].operands[0].kind != operand_kind::reg && ins[k].operands[0].kind != operand_kind::vector))
        continue;
      bool go = true;
      for_writes(ins[k], [&](std::uint32_t w) {
        if (w == *xr) go = false;
        else if (w == r) go = go && !read_outside(w, k + 1, b0);
        else go = go && !read_outside(w, 0, size);
      });
      removed[k] = go;
    }
    // Nothing the removed code writes, except r, may be read by what stays; x's register (which
    // the sequence may scale in place) only by what runs before the region, where it holds x.
    for (std::uint32_t k = s; k < e; ++k) {
      if (!removed[k]) continue;
      bool ok = true;
      for_writes(ins[k], [&](std::uint32_t w) {
        if (w == *xr) ok = ok && !read_outside(w, 0, s) && !read_outside(w, e, size);
        else if (w != r) ok = ok && !read_outside(w, 0, size);
      });
      if (!ok) return std::nullopt;
    }
    region_lift done;
    done.t = &t;
    done.at = b0;
    std::vector<std::uint32_t> fed;  // registers the removed code read
    for (std::uint32_t k = s; k < e; ++k) {
      if (!removed[k]) continue;
      done.lines.push_back(ins[k].line);
      for_reads(ins[k], [&](std::uint32_t reg) { fed.push_back(reg); });
      dead_[k] = true;
    }
    instruction lifted;
    lifted.op = opcode::lifted;
    lifted.lifted_fn = t.fn;
    lifted.mods.push_back(m_.names.intern(".f64"));
    operand rd, xo;
    rd.kind = xo.kind = operand_kind::reg;
    rd.name = r;
    xo.name = *xr;
    lifted.operands.push_back(rd);
    lifted.operands.push_back(xo);
    lifted.line = ins[b0].line;
    lifted.column = ins[b0].column;
    lifted.loc = ins[b0].loc;
    lifted.lifted_lines = done.lines;
    ins[b0] = std::move(lifted);
    dead_[b0] = false;
    sweep(fed);
    return done;
  }

  // Pure instructions whose results nothing reads any more (after a rewrite) go too.
  void sweep(std::vector<std::uint32_t> work) {
    index_reads();
    while (!work.empty()) {
      const std::uint32_t reg = work.back();
      work.pop_back();
      if (auto it = reads_.find(reg); it != reads_.end() && !it->second.empty()) continue;
      for (std::uint32_t k = 0; k < f_.instructions.size(); ++k) {
        const instruction& in = f_.instructions[k];
        if (dead_[k] || !pure_opcode(in.op) || in.guarded) continue;
        bool writes = false, all_unread = true;
        for_writes(in, [&](std::uint32_t w) {
          writes = writes || w == reg;
          auto it = reads_.find(w);
          all_unread = all_unread && (it == reads_.end() || it->second.empty());
        });
        if (!writes || !all_unread) continue;
        dead_[k] = true;
        for_reads(in, [&](std::uint32_t r2) {
          auto& v = reads_[r2];
          v.erase(std::remove(v.begin(), v.end(), k), v.end());
          work.push_back(r2);
        });
      }
    }
  }

  module& m_;
  function& f_;
  std::vector<bool>& dead_;
  boost::unordered_flat_map<std::uint32_t, std::vector<std::uint32_t>> reads_;
  boost::unordered_flat_map<std::uint32_t, operand> constants_;
};

}  // namespace detail
}  // namespace gpueq::ptx
