// The engine's fast forms (exec/program.hpp, engine::fast_step) against its generic path: every
// kernel here runs twice, with engine_options::fast_forms on and off, and the two runs must agree
// on everything a caller can see: each output cell (tag, bits, provenance, the float value bit for
// bit, NaN payloads included), the error (kind, thread, instruction, message), the step count and
// every observer event in order. The integer ALU is swept over operation x type x operand form on
// operands that include the edge values (0, -1, sign bits, shift amounts at and past the width);
// f32 arithmetic over rounding modes, .ftz/.sat and special values as registers holding decoded
// floats, registers holding bits, and immediates; loads and stores over vector widths, state
// spaces, sign extension, and every error a memory access can stop with. Each sweep also checks
// that the instruction under test has the fast form it is meant to have, so the comparison is not
// between two runs of the generic path.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace exec_test;

namespace {

// Every observer event, in order, as text: equal logs mean equal event sequences.
struct event_log {
  std::vector<std::string> events;
  template <class... T>
  void add(const T&... parts) {
    std::ostringstream os;
    ((os << parts << ' '), ...);
    events.push_back(os.str());
  }
  void on_start(const exec::run_info& i) { add("start", i.threads, i.regions.size()); }
  void on_access(const exec::access& a) {
    add("access", a.thread, a.region, a.offset, a.width, static_cast<int>(a.kind), a.instruction,
        static_cast<int>(a.value.k), a.value.id, static_cast<int>(a.op));
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    add("register", r.thread, static_cast<int>(k.kind), k.id, g, e, r.instruction, r.waits);
  }
  void on_barrier_complete(const exec::barrier_instance& b) {
    std::ostringstream os;
    for (auto& p : b.participants) os << p.thread << ',';
    add("complete", static_cast<int>(b.key.kind), b.key.id, b.generation, b.expected, os.str());
  }
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g) {
    add("acquire", r.thread, static_cast<int>(k.kind), k.id, g, r.instruction);
  }
  void on_exit(std::uint32_t t, std::uint32_t pc) { add("exit", t, pc); }
};

inline std::string show_symbolic(exec::symbolic_domain::real r) {
  return std::to_string(r.t) + (r.open() ? "/" + std::to_string(r.n) : std::string());
}

template <class R>
std::string show_cell(const exec::cell<R>& c) {
  // The fields the tag gives a meaning (bits and r2 share their bytes in these domains' cells).
  using tag = exec::cell_tag;
  auto show = [](const R& r) {
    if constexpr (std::is_same_v<R, double>) return std::to_string(std::bit_cast<std::uint64_t>(r));
    else return show_symbolic(r);  // symbolic: a term, or an open sum's buffer/length
  };
  std::string s = "tag" + std::to_string(static_cast<int>(c.t));
  if (c.t == tag::bits || c.t == tag::empty)
    s += " prov" + std::to_string(c.provenance) + " bits" + std::to_string(c.bits);
  else
    s += " k" + std::to_string(static_cast<int>(c.k)) + " r" + show(c.r);
  if (c.t == tag::packed || c.t == tag::predicate) s += " r2" + show(c.r2);
  if (c.t == tag::predicate)
    s += " cmp" + std::to_string(static_cast<int>(c.cmp)) + " neg" + std::to_string(c.negated);
  return s;
}

struct observed {
  std::string error;  // kind, thread, instruction and message; empty when the run completed
  std::uint64_t steps = 0;
  std::vector<std::string> cells;  // every output element's cell
  std::vector<std::string> events;
};

template <class D>
observed run_mode(const kernel& k, const exec::launch& l, D& d, bool fast, exec::engine_options options = {},
                  bool warp_wide = false) {
  observed o;
  event_log log;
  options.fast_forms = fast;
  // The two paths under one schedule, each thread until it blocks; warp-wide execution (the
  // default schedule) reorders the lanes' events, and same_both_ways compares it separately.
  options.warp_wide = warp_wide;
  exec::engine<D, event_log> e(k.program, l, d, log, std::move(options));
  if (auto err = e.run())
    o.error = std::string(exec::name(err->kind)) + " t" + std::to_string(err->thread) + " i" +
              std::to_string(err->instruction) + (err->has_instruction ? "+" : "-") + " " + err->message;
  o.steps = e.stats().steps;
  if (o.error.empty())
    for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti)
      if (l.tensors[ti].output)
        for (std::uint64_t i = 0; i < l.tensors[ti].elements(); ++i) {
          auto c = e.output(ti, i);
          o.cells.push_back(c ? show_cell(*c) : std::string("unwritten"));
        }
  o.events = std::move(log.events);
  return o;
}

// A domain with what it needs: the float32 domain fed by float32_values, or a symbolic domain with
// its store.
double float32_values(const exec::input_ref& in) {
  // Special floats for some elements, random bit patterns (any exponent, NaNs included) for the
  // rest: values of the element's format, as inputs always are.
  static const float special_floats[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1.1754942e-38f,
                                         3.4028235e38f, 1.1754944e-38f, 0.5f, 16777217.0f, 6e-8f, -3.1415927f, 1.0f / 3};
  std::uint64_t h = (in.element + 1) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  if (in.kind == exec::rkind::integer) return static_cast<double>(static_cast<std::int64_t>(h % 2001) - 1000);
  if (h % 3 == 0) return static_cast<double>(special_floats[(h >> 8) % 16]);
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(h >> 16)));
}
struct float32_box {
  exec::float32_domain d{float32_values};
};
struct symbolic_box {
  term::store s;
  exec::symbolic_domain d{s};
};

// Runs the kernel with and without fast forms (each in a fresh Box) and checks that the runs
// agree; then warp-wide, with fast forms (the default), which must agree with them on the error,
// and, when the run completes, on the step count, every output cell and the events taken as a
// multiset (warp-wide execution reorders only the lanes' unordered accesses; a run that stops with
// an error may have counted other lanes' steps first, and check::run_cta runs it again under round
// robin). Returns the fast run.
template <class Box>
observed same_both_ways(const kernel& k, const exec::launch& l, exec::engine_options options = {}) {
  Box b1, b2;
  observed fast = run_mode(k, l, b1.d, true, options);
  observed slow = run_mode(k, l, b2.d, false, options);
  CHECK(fast.error == slow.error);
  CHECK(fast.steps == slow.steps);
  // The first difference, if any (one check each: the sweeps compare millions of cells and events).
  auto first_difference = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return i == a.size() && i == b.size() ? std::string("none") : std::to_string(i) + ": " + (i < a.size() ? a[i] : "-") +
                                                                      " vs " + (i < b.size() ? b[i] : "-");
  };
  CHECK(first_difference(fast.cells, slow.cells) == "none");
  CHECK(first_difference(fast.events, slow.events) == "none");
  Box b3;
  observed warp = run_mode(k, l, b3.d, true, options, true);
  CHECK(warp.error == fast.error);
  if (fast.error.empty() && warp.error.empty()) {
    CHECK(warp.steps == fast.steps);
    // Symbolically, the lanes' terms are made in another order, so the cells and events (which
    // show term numbers) differ in their numbers; tests/check/fast_forms_corpus_test.cpp compares
    // those runs' outputs as terms of one store.
    if constexpr (!std::is_same_v<Box, float32_box>) return fast;
    CHECK(first_difference(warp.cells, fast.cells) == "none");
    std::sort(warp.events.begin(), warp.events.end());
    std::vector<std::string> in_order = fast.events;
    std::sort(in_order.begin(), in_order.end());
    CHECK(first_difference(warp.events, in_order) == "none");
  }
  return fast;
}

// The fast form of the instruction on the line of `text` that contains `needle` (tests check that
// the instruction under test is not left to the generic path).
exec::fast_op fast_op_at(const kernel& k, std::string_view text, std::string_view needle) {
  std::uint32_t line = line_of(text, needle);
  const auto& f = *k.program.function;
  for (std::size_t i = 0; i < f.instructions.size(); ++i)
    if (f.instructions[i].line == line) return k.program.fast[i].op;
  FAIL("no instruction on the line of " << needle);
  return exec::fast_op::none;
}

// ---- integer ALU -------------------------------------------------------------------------------
// 1024 threads; thread t computes a, b (and c) from edge values and hashes of t, runs `op` into
// %rd30 and stores %rd30 (all 64 bits of the register) to out[t].
std::string integer_kernel(std::string_view op) {
  return std::string(R"(
.global .align 8 .b64 specials[16] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 2147483647, 2147483648, 4294967295,
                                      9223372036854775807, 9223372036854775808, 18446744073709551615, 4294934528};
.visible .entry alu(.param .u64 out_param)
{
  .reg .pred %p<8>;
  .reg .b16 %h<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<40>;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  mul.lo.u64 %rd4, %rd3, -7046029254386353131;
  shr.u64 %rd5, %rd4, 29;
  xor.b64 %rd6, %rd4, %rd5;
  mul.lo.u64 %rd7, %rd6, -4658895280553007687;
  shr.u64 %rd8, %rd7, 31;
  xor.b64 %rd9, %rd7, %rd8;
  mul.lo.u64 %rd10, %rd9, -7723592293110705685;
  shr.u64 %rd11, %rd10, 27;
  xor.b64 %rd12, %rd10, %rd11;
  mov.u64 %rd13, specials;
  and.b64 %rd14, %rd3, 15;
  shl.b64 %rd15, %rd14, 3;
  add.s64 %rd16, %rd13, %rd15;
  ld.global.u64 %rd17, [%rd16];
  shr.u64 %rd18, %rd3, 4;
  and.b64 %rd19, %rd18, 15;
  shl.b64 %rd20, %rd19, 3;
  add.s64 %rd21, %rd13, %rd20;
  ld.global.u64 %rd22, [%rd21];
  and.b64 %rd23, %rd3, 256;
  setp.ne.u64 %p1, %rd23, 0;
  selp.b64 %rd24, %rd6, %rd17, %p1;
  and.b64 %rd25, %rd9, 127;
  and.b64 %rd26, %rd3, 128;
  setp.ne.u64 %p2, %rd26, 0;
  selp.b64 %rd27, %rd25, %rd9, %p2;
  and.b64 %rd28, %rd3, 512;
  setp.ne.u64 %p3, %rd28, 0;
  selp.b64 %rd29, %rd27, %rd22, %p3;
  mov.b64 %rd31, %rd12;
)") + std::string(op) + R"(
  shl.b64 %rd32, %rd3, 3;
  add.s64 %rd33, %rd2, %rd32;
  st.global.u64 [%rd33], %rd30;
  ret;
}
)";
}

void integer_case(const std::string& op, exec::fast_op expected, bool symbolic_too = true) {
  INFO(op);
  std::string text = integer_kernel(op);
  auto k = load(text);
  CHECK(fast_op_at(*k, text, op.substr(0, op.find(';'))) == expected);
  auto l = one_cta(1024, {out_int("out", 1024, 8)});
  observed r = same_both_ways<float32_box>(*k, l);
  CHECK(r.error.empty());
  if (!symbolic_too) return;
  observed sym = same_both_ways<symbolic_box>(*k, l);
  CHECK(sym.cells == r.cells);  // concrete bits do not depend on the domain
}

TEST_CASE("fast forms: the integer ALU agrees with the generic path (ops x types x operand forms)") {
  struct binary {
    const char* name;
    exec::fast_op op;
  };
  const binary ops[] = {{"add", exec::fast_op::int_add}, {"sub", exec::fast_op::int_sub},
                        {"mul.lo", exec::fast_op::int_mul_lo}, {"shl", exec::fast_op::int_shl},
                        {"shr", exec::fast_op::int_shr}, {"and", exec::fast_op::int_and},
                        {"or", exec::fast_op::int_or}, {"xor", exec::fast_op::int_xor},
                        {"min", exec::fast_op::int_min}, {"max", exec::fast_op::int_max}};
  const char* types[] = {"u16", "s16", "u32", "s32", "b32", "u64", "s64", "b64"};
  for (auto& o : ops)
    for (const char* t : types) {
      // (Every type with every operation: the engine computes whatever PTX would reject too.)
      std::string base = std::string(o.name) + "." + t + " %rd30, %rd24, ";
      integer_case(base + "%rd29;", o.op);
      for (const char* imm : {"0", "-1", "33", "64"}) integer_case(base + imm + ";", o.op, false);
      // %rd13 is an address (of specials): results keep or lose its array as the generic path does.
      integer_case(std::string(o.name) + "." + t + " %rd30, %rd13, %rd24;", o.op, false);
      integer_case(std::string(o.name) + "." + t + " %rd30, %rd24, %rd13;", o.op, false);
      integer_case(std::string(o.name) + "." + t + " %rd30, %rd13, %rd13;", o.op, false);
    }
  for (const char* t : {"u16", "s16", "u32", "s32"}) {
    std::string ty(t);
    integer_case("mul.wide." + ty + " %rd30, %rd24, %rd29;", exec::fast_op::int_mul_wide);
    integer_case("mul.wide." + ty + " %rd30, %rd24, -3;", exec::fast_op::int_mul_wide);
    integer_case("mad.wide." + ty + " %rd30, %rd24, %rd29, %rd31;", exec::fast_op::int_mad_wide);
    integer_case("mad.wide." + ty + " %rd30, %rd24, 4, %rd31;", exec::fast_op::int_mad_wide);
  }
  for (const char* t : {"u16", "s16", "u32", "s32", "u64", "s64"}) {
    std::string ty(t);
    integer_case("mad.lo." + ty + " %rd30, %rd24, %rd29, %rd31;", exec::fast_op::int_mad_lo);
    integer_case("mad.lo." + ty + " %rd30, %rd24, 7, %rd31;", exec::fast_op::int_mad_lo);
    integer_case("mad.lo." + ty + " %rd30, %rd24, %rd29, %rd13;", exec::fast_op::int_mad_lo, false);
    integer_case("mad.lo." + ty + " %rd30, %rd13, %rd29, %rd24;", exec::fast_op::int_mad_lo, false);
  }
  integer_case("mad.wide.u32 %rd30, %rd24, 4, %rd13;", exec::fast_op::int_mad_wide, false);
}

TEST_CASE("fast forms: integer comparisons, conversions, moves and selections agree with the generic path") {
  const char* types[] = {"u16", "s16", "u32", "s32", "b32", "u64", "s64", "b64"};
  for (const char* c : {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"})
    for (const char* t : types) {
      std::string ty(t), cmp(c);
      if (ty[0] == 'b' && cmp != "eq" && cmp != "ne") continue;
      integer_case("setp." + cmp + "." + ty + " %p4, %rd24, %rd29;\n  selp.u64 %rd30, 1, 0, %p4;", exec::fast_op::setp_int);
      integer_case("setp." + cmp + "." + ty + " %p4, %rd24, -2;\n  selp.u64 %rd30, %rd24, %rd29, %p4;",
                   exec::fast_op::setp_int, false);
    }
  const char* ints[] = {"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"};
  for (const char* to : ints)
    for (const char* from : ints)
      integer_case(std::string("cvt.") + to + "." + from + " %rd30, %rd24;", exec::fast_op::cvt_int, false);
  integer_case("cvt.u32.u64 %rd30, %rd13;", exec::fast_op::cvt_int, false);
  integer_case("mov.u64 %rd30, %rd13;", exec::fast_op::mov, false);
  integer_case("mov.u32 %rd30, %rd13;", exec::fast_op::mov, false);
  for (const char* t : {"u16", "s16", "u32", "b32", "s64", "b64", "pred"}) {
    std::string ty(t);
    integer_case("mov." + ty + " %rd30, %rd24;", exec::fast_op::mov);
    integer_case("mov." + ty + " %rd30, -5;", exec::fast_op::mov);
  }
  integer_case("mov.u16 %rd30, %laneid;", exec::fast_op::mov_special);
  integer_case("mov.u32 %rd30, %lanemask_lt;", exec::fast_op::mov_special);
  // Guards: taken and not taken, negated, on a branch and on an ALU instruction.
  integer_case("mov.u64 %rd30, 0;\n  @%p1 add.s64 %rd30, %rd24, %rd29;", exec::fast_op::mov);
  integer_case("mov.u64 %rd30, 0;\n  @!%p3 bra $L_skip;\n  add.s64 %rd30, %rd24, 1;\n$L_skip:\n  add.s64 %rd30, %rd30, 2;",
               exec::fast_op::mov);
}

// ---- f32 arithmetic ----------------------------------------------------------------------------
// Thread t reads x[3t..3t+2] (decoded floats), fspecials[...] (bits) and picks, per operand, one
// of the two by bits of t; runs `op` into %f10 and stores it to y[t].
std::string fast_float_kernel(std::string_view op) {
  return std::string(R"(
.global .align 4 .b32 fspecials[16] = {0, 2147483648, 1065353216, 3212836864, 2139095040, 4286578688, 2143289344, 1,
                                       2155872255, 2139095039, 8388608, 4290773283, 1266679809, 864026624, 3226013659,
                                       1051372203};
.visible .entry fop(.param .u64 x_param, .param .u64 y_param)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 12;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd6+4];
  ld.global.f32 %f3, [%rd6+8];
  mov.u64 %rd7, fspecials;
  and.b32 %r2, %r1, 15;
  mul.wide.u32 %rd8, %r2, 4;
  add.s64 %rd9, %rd7, %rd8;
  ld.global.b32 %f4, [%rd9];
  shr.u32 %r3, %r1, 4;
  and.b32 %r4, %r3, 15;
  mul.wide.u32 %rd10, %r4, 4;
  add.s64 %rd11, %rd7, %rd10;
  ld.global.b32 %f5, [%rd11];
  and.b32 %r5, %r1, 256;
  setp.ne.u32 %p1, %r5, 0;
  and.b32 %r6, %r1, 512;
  setp.ne.u32 %p2, %r6, 0;
  selp.b32 %f6, %f4, %f1, %p1;
  selp.b32 %f7, %f5, %f2, %p2;
  mov.f32 %f8, %f3;
)") + std::string(op) + R"(
  mul.wide.u32 %rd12, %r1, 4;
  add.s64 %rd13, %rd4, %rd12;
  st.global.f32 [%rd13], %f10;
  ret;
}
)";
}

TEST_CASE("fast forms: f32 arithmetic agrees bit for bit with the generic path (modes, specials, operand forms)") {
  auto l = one_cta(1024, {in_f32("x", 3 * 1024), out_f32("y", 1024)});
  auto check_op = [&](const std::string& op, exec::fast_op expected) {
    INFO(op);
    std::string text = fast_float_kernel(op);
    auto k = load(text);
    CHECK(fast_op_at(*k, text, op.substr(0, op.find(';'))) == expected);
    observed r = same_both_ways<float32_box>(*k, l);
    CHECK(r.error.empty());
  };
  for (const char* round : {"", ".rn", ".rz", ".rm", ".rp"})
    for (const char* mods : {"", ".ftz", ".sat", ".ftz.sat"})
      for (const char* o : {"add", "sub", "mul"}) {
        std::string name = std::string(o) + round + mods + ".f32";
        check_op(name + " %f10, %f6, %f7;", exec::fast_op::f32_arith);
        check_op(name + " %f10, %f6, 0f3F000001;", exec::fast_op::f32_arith);
      }
  for (const char* round : {".rn", ".rz", ".rm", ".rp"})
    for (const char* mods : {"", ".ftz", ".sat"}) {
      std::string name = std::string("fma") + round + mods + ".f32";
      check_op(name + " %f10, %f6, %f7, %f8;", exec::fast_op::f32_arith);
      check_op(name + " %f10, %f6, 0fBF800000, %f8;", exec::fast_op::f32_arith);
      check_op(name + " %f10, %f1, %f2, %f3;", exec::fast_op::f32_arith);  // all decoded floats
    }
  for (const char* op : {"div.rn.f32 %f10, %f6, %f7;", "div.approx.f32 %f10, %f6, %f7;", "div.full.f32 %f10, %f6, %f7;",
                         "min.f32 %f10, %f6, %f7;", "max.ftz.f32 %f10, %f6, %f7;", "neg.f32 %f10, %f6;",
                         "abs.ftz.f32 %f10, %f6;", "sqrt.rn.f32 %f10, %f6;", "rcp.rn.f32 %f10, %f6;",
                         "rsqrt.approx.f32 %f10, %f6;", "ex2.approx.ftz.f32 %f10, %f6;", "lg2.approx.f32 %f10, %f6;",
                         "mad.rn.f32 %f10, %f6, %f7, %f8;"})
    check_op(op, exec::fast_op::f32_arith);
  for (const char* c : {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}) {
    check_op(std::string("setp.") + c + ".f32 %p3, %f6, %f7;\n  selp.f32 %f10, %f6, %f7, %p3;", exec::fast_op::setp_f32);
    check_op(std::string("setp.") + c + ".f32 %p3, %f6, 0f00000000;\n  selp.f32 %f10, 0f3F800000, %f7, %p3;",
             exec::fast_op::setp_f32);
  }
}

TEST_CASE("fast forms: float32_domain::f32_plain is arith with float_mode{} on f32, NaN payloads aside") {
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  std::uint64_t h = 12345;
  auto next = [&] {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(h >> 32);
  };
  const std::uint32_t edges[] = {0, 0x80000000u, 0x3f800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fa00001u,
                                 1, 0x807fffffu, 0x7f7fffffu, 0x00800000u, 0x4b800000u, 0x33800000u};
  // Equal bits, or both NaN (the engine takes a NaN result from arith: see fast_float_finish).
  auto agree = [](double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
  };
  std::size_t nans = 0, fma_nans = 0;
  for (int i = 0; i < 20000; ++i) {
    double x[3];
    for (auto& v : x) v = static_cast<double>(std::bit_cast<float>(i % 3 == 0 ? edges[next() % 13] : next()));
    INFO(x[0] << " " << x[1] << " " << x[2]);
    using exec::aop;
    double add = exec::float32_domain::f32_plain<aop::add>(x[0], x[1], x[2]);
    double sub = exec::float32_domain::f32_plain<aop::sub>(x[0], x[1], x[2]);
    double mul = exec::float32_domain::f32_plain<aop::mul>(x[0], x[1], x[2]);
    double fma = exec::float32_domain::f32_plain<aop::fma>(x[0], x[1], x[2]);
    CHECK(agree(add, d.arith(aop::add, std::span<const double>(x, 2), exec::rkind::f32, {})));
    CHECK(agree(sub, d.arith(aop::sub, std::span<const double>(x, 2), exec::rkind::f32, {})));
    CHECK(agree(mul, d.arith(aop::mul, std::span<const double>(x, 2), exec::rkind::f32, {})));
    CHECK(agree(fma, d.arith(aop::fma, std::span<const double>(x, 3), exec::rkind::f32, {})));
    nans += std::isnan(add);
    // f32_fma_lanes (a warp's fmas at once) gives f32_plain<aop::fma>'s value in every lane.
    float fa[3], fb[3], fc[3], fr[3];
    for (int lane = 0; lane < 3; ++lane) {
      fa[lane] = static_cast<float>(x[lane]);
      fb[lane] = static_cast<float>(x[(lane + 1) % 3]);
      fc[lane] = static_cast<float>(x[(lane + 2) % 3]);
    }
    const bool nan = exec::float32_domain::f32_fma_lanes(fa, fb, fc, fr, 3);
    bool expect_nan = false;
    for (int lane = 0; lane < 3; ++lane) {
      const double want = exec::float32_domain::f32_plain<aop::fma>(x[lane], x[(lane + 1) % 3], x[(lane + 2) % 3]);
      CHECK(agree(static_cast<double>(fr[lane]), want));
      expect_nan = expect_nan || std::isnan(want);
    }
    CHECK(nan == expect_nan);  // (it says whether some lane's result is a NaN)
    fma_nans += nan;
  }
  CHECK(nans > 100);
  CHECK(fma_nans > 100);
}

TEST_CASE("fast forms: float32_domain::f32_product is arith's f32 fma over k in order, element by element") {
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  std::uint64_t h = 777;
  auto next = [&] {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(h >> 32);
  };
  // f32 values with exponents over a range wide enough that every fma rounds and the order of the
  // k terms changes the sum.
  auto number = [&] {
    std::uint32_t sign = next() & 0x80000000u, exponent = 127 - 12 + next() % 25, mantissa = next() & 0x7fffffu;
    return static_cast<double>(std::bit_cast<float>(sign | exponent << 23 | mantissa));
  };
  // The model: D[i][j] = fma(A[i][k-1], B[k-1][j], ... fma(A[i][0], B[0][j], C[i][j])) through arith.
  auto model = [&](const std::vector<double>& A, const std::vector<double>& B, const std::vector<double>& C,
                   std::uint32_t m, std::uint32_t n, std::uint32_t k, bool reversed) {
    std::vector<double> D(std::size_t{m} * n);
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        double acc = C[i * n + j];
        for (std::uint32_t s = 0; s < k; ++s) {
          std::uint32_t q = reversed ? k - 1 - s : s;
          double x[3] = {A[i * k + q], B[q * n + j], acc};
          acc = d.arith(exec::aop::fma, std::span<const double>(x, 3), exec::rkind::f32, {});
        }
        D[i * n + j] = acc;
      }
    return D;
  };
  for (auto [m, n, k] : {std::array<std::uint32_t, 3>{16, 8, 16}, {16, 8, 8}, {16, 16, 16}, {3, 5, 7}, {16, 256, 16}}) {
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    std::vector<double> A(std::size_t{m} * k), B(std::size_t{k} * n), C(std::size_t{m} * n), D(C.size());
    for (auto* v : {&A, &B, &C})
      for (double& x : *v) x = number();
    REQUIRE(exec::float32_domain::f32_product(A.data(), B.data(), C.data(), D.data(), m, n, k));
    std::vector<double> want = model(A, B, C, m, n, k, false), other = model(A, B, C, m, n, k, true);
    std::size_t differ = 0, order_matters = 0;
    for (std::size_t e = 0; e < D.size(); ++e) {
      differ += std::bit_cast<std::uint64_t>(D[e]) != std::bit_cast<std::uint64_t>(want[e]);
      order_matters += want[e] != other[e];
    }
    CHECK(differ == 0);
    CHECK(order_matters > 0);  // the data can tell k order from its reverse
    // A NaN anywhere in the result (here ∞ · 0 in element (m-1, n-1)) hands the product back.
    A[std::size_t{m} * k - 1] = std::numeric_limits<double>::infinity();
    B[std::size_t{k} * n - 1] = 0.0;
    CHECK_FALSE(exec::float32_domain::f32_product(A.data(), B.data(), C.data(), D.data(), m, n, k));
  }
}

// ---- memory ------------------------------------------------------------------------------------
std::string memory_kernel(std::string_view body) {
  return std::string(R"(
.const .align 4 .b32 table[4] = {1, 2, 3, 4};
.visible .entry mem(.param .u64 x_param, .param .u64 y_param, .param .u64 z_param)
{
  .shared .align 16 .b8 s1[64];
  .shared .align 16 .b8 s2[64];
  .reg .pred %p<8>;
  .reg .b16 %h<8>;
  .reg .b32 %r<32>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<32>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.param.u64 %rd3, [z_param];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s1;
  mov.u32 %r3, s2;
  mov.u64 %rd7, s1;
  cvta.shared.u64 %rd8, %rd7;
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd10, %rd4, %rd9;
  add.s64 %rd11, %rd5, %rd9;
  add.s64 %rd12, %rd6, %rd9;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r2, %r4;
  add.s32 %r6, %r3, %r4;
  cvt.u64.u32 %rd13, %r4;
  add.s64 %rd14, %rd8, %rd13;
)") + std::string(body) + "\n  ret;\n}\n";
}

void memory_case(std::string_view body, std::uint32_t threads, bool expect_error) {
  INFO(body);
  auto k = load(memory_kernel(body));
  auto l = one_cta(threads, {in_f32("x", 64), out_f32("y", 64), out_int("z", 64)});
  observed r = same_both_ways<float32_box>(*k, l);
  CHECK(r.error.empty() != expect_error);
  same_both_ways<symbolic_box>(*k, l);
}

TEST_CASE("fast forms: loads and stores agree with the generic path, errors included") {
  // Through shared memory by a shared address and by a generic one; vectors; sign extension of
  // narrow loads; a word read back as halves and bytes.
  memory_case(R"(
  ld.global.f32 %f1, [%rd10];
  st.shared.f32 [%r5], %f1;
  bar.sync 0;
  ld.f32 %f2, [%rd14];
  st.global.f32 [%rd11], %f2;
  ld.shared.u32 %r7, [%r5];
  st.global.u32 [%rd12], %r7;)",
              16, false);
  memory_case(R"(
  and.b32 %r8, %r4, 15;
  setp.eq.u32 %p1, %r8, 0;
  @!%p1 bra $L_done;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd10];
  st.shared.v4.f32 [%r5], {%f1, %f2, %f3, %f4};
  ld.shared.v2.f32 {%f5, %f6}, [%r5+8];
  st.global.v2.f32 [%rd11], {%f6, %f5};
  st.shared.v4.u32 [%r6], {%r1, %r4, 7, -1};
  ld.shared.v4.u32 {%r9, %r10, %r11, %r12}, [%r6];
  st.global.v4.u32 [%rd12], {%r12, %r11, %r10, %r9};
$L_done:)",
              16, false);
  memory_case(R"(
  mul.lo.u32 %r8, %r1, -1640531535;
  st.shared.u32 [%r5], %r8;
  ld.shared.s16 %r9, [%r5+2];
  ld.shared.u8 %r10, [%r5+1];
  ld.shared.s8 %r11, [%r5+3];
  ld.shared.u16 %h1, [%r5];
  cvt.u32.u16 %r12, %h1;
  add.s32 %r13, %r9, %r10;
  add.s32 %r14, %r13, %r11;
  add.s32 %r15, %r14, %r12;
  st.global.u32 [%rd12], %r15;
  st.global.u16 [%rd12], %r9;)",
              16, false);
  // Errors: misaligned, an address derived from s1 that lands in s2 (after other threads primed the
  // instruction's region with in-bounds accesses), past the end of a tensor, uninitialized shared
  // memory, an output read before it is written, a store to constant memory, an unwritten register.
  memory_case("add.s64 %rd15, %rd10, 2;\n  ld.global.f32 %f1, [%rd15];", 4, true);
  memory_case("st.shared.u32 [%r5], %r1;\n  st.shared.u32 [%r6], %r1;\n  bar.sync 0;\n"
              "  add.s32 %r8, %r5, 48;\n  ld.shared.u32 %r9, [%r8];\n  st.global.u32 [%rd12], %r9;",
              16, true);
  memory_case("st.shared.u32 [%r6], %r1;\n  bar.sync 0;\n  setp.eq.u32 %p1, %r1, 5;\n  selp.u32 %r8, %r2, %r3, %p1;\n"
              "  selp.u32 %r11, 64, 0, %p1;\n  add.s32 %r9, %r8, %r4;\n  add.s32 %r12, %r9, %r11;\n"
              "  ld.shared.u32 %r10, [%r12];\n  st.global.u32 [%rd12], %r10;",
              16, true);
  memory_case("add.s64 %rd15, %rd10, 240;\n  ld.global.f32 %f1, [%rd15];", 8, true);
  memory_case("ld.shared.u32 %r8, [%r5];", 4, true);
  memory_case("ld.global.f32 %f1, [%rd11];", 4, true);
  memory_case("mov.u64 %rd15, table;\n  st.global.u32 [%rd15], %r1;", 4, true);
  memory_case("st.global.u32 [%rd12], %r20;", 4, true);
  memory_case("ld.const.u32 %r8, [table+4];\n  mov.u64 %rd15, table;\n  ld.global.u32 %r9, [%rd15+8];\n"
              "  add.s32 %r10, %r8, %r9;\n  st.global.u32 [%rd12], %r10;",
              4, false);
}

TEST_CASE("fast forms: volatile loads and stores have the plain ones' fast forms and agree with the generic path") {
  // .volatile means nothing more to the engine than a plain access (the warp-synchronous
  // reductions and stencils read and write shared memory through volatile pointers).
  const std::string body = R"(
  ld.volatile.global.f32 %f1, [%rd10];
  st.volatile.shared.f32 [%r5], %f1;
  bar.sync 0;
  ld.volatile.shared.f32 %f2, [%r5];
  ld.volatile.f32 %f3, [%rd14];
  add.f32 %f4, %f2, %f3;
  st.volatile.global.f32 [%rd11], %f4;)";
  const std::string text = memory_kernel(body);
  auto k = load(text);
  CHECK(fast_op_at(*k, text, "ld.volatile.global") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, text, "st.volatile.shared") == exec::fast_op::st);
  CHECK(fast_op_at(*k, text, "ld.volatile.shared") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, text, "st.volatile.global") == exec::fast_op::st);
  memory_case(body, 16, false);
  // A volatile read past its array fails as the plain one does.
  memory_case("st.shared.u32 [%r5], %r1;\n  bar.sync 0;\n  ld.volatile.shared.u32 %r8, [%r5+4];\n"
              "  st.global.u32 [%rd12], %r8;",
              16, true);
}

TEST_CASE("fast forms: loads and stores at a symbol's address ([s1+8]) agree with the generic path, errors included") {
  // Every lane reads the same words (a broadcast, as nvcc reads a block reduction's result), and
  // thread 3 alone stores at a symbol; a vector read; then reads past the array (into s2, which
  // is an error, as through a register) and of a word nobody wrote.
  const std::string body = R"(
  st.shared.u32 [%r5], %r1;
  setp.eq.u32 %p1, %r1, 3;
  @%p1 st.shared.u32 [s2+4], %r1;
  bar.sync 0;
  ld.shared.u32 %r8, [s1+8];
  ld.shared.v2.u32 {%r9, %r10}, [s1+16];
  ld.shared.u32 %r11, [s2+4];
  add.s32 %r12, %r8, %r9;
  add.s32 %r13, %r12, %r10;
  mad.lo.s32 %r14, %r11, 100, %r13;
  st.global.u32 [%rd12], %r14;)";
  const std::string text = memory_kernel(body);
  auto k = load(text);
  CHECK(fast_op_at(*k, text, "ld.shared.u32 %r8, [s1+8]") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, text, "ld.shared.v2.u32") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, text, "st.shared.u32 [s2+4]") == exec::fast_op::st);
  // (and every kernel here reads its parameters whole by name, converts addresses with cvta and
  // takes arrays' addresses with mov: fast forms too, cvta as an add of the space's window)
  CHECK(fast_op_at(*k, text, "ld.param.u64 %rd1, [x_param]") == exec::fast_op::ld_param);
  CHECK(fast_op_at(*k, text, "cvta.to.global.u64 %rd4") == exec::fast_op::int_add);
  CHECK(fast_op_at(*k, text, "cvta.shared.u64 %rd8") == exec::fast_op::int_add);
  CHECK(fast_op_at(*k, text, "mov.u32 %r2, s1") == exec::fast_op::mov);
  memory_case(body, 16, false);
  memory_case("st.shared.u32 [%r5], %r1;\n  bar.sync 0;\n  ld.shared.u32 %r8, [s1+64];\n  st.global.u32 [%rd12], %r8;",
              16, true);
  memory_case("st.shared.u32 [%r5], %r1;\n  bar.sync 0;\n  ld.shared.u32 %r8, [s2+60];\n  st.global.u32 [%rd12], %r8;",
              16, true);
  memory_case("ld.shared.u32 %r8, [s1+2];\n  st.global.u32 [%rd12], %r8;", 4, true);
}

// Warp-wide execution's warp forms (engine::warp_fast: loads, f32 arithmetic, the integer ALU
// run for a warp's lanes at once) on straight-line code they take whole, and on lanes they hand
// back to the fast forms one by one: in each warp, lanes 0..15 read a word stored whole and lanes
// 16..31 a word stored as four bytes (pieces); every lane sign-extends a byte stored whole
// (ld.s8); groups of four lanes read one input element, made on the first lane's read. The
// results are checked against values computed here, and against round robin (same_both_ways).
// PTX checked with ptxas -arch=sm_80.
constexpr std::string_view warp_forms_kernel = R"(
.visible .entry warp_loads(.param .u64 x_param, .param .u64 y_param, .param .u64 o_param)
{
  .reg .b32 %r<24>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.param.u64 %rd3, [o_param];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  sub.s32 %r5, -1, %r1;
  st.shared.u8 [%r4+256], %r5;
  st.shared.u8 [%r4+257], %r5;
  st.shared.u8 [%r4+258], %r5;
  st.shared.u8 [%r4+259], %r5;
  bar.sync 0;
  and.b32 %r6, %r1, 16;
  shl.b32 %r7, %r6, 4;
  xor.b32 %r8, %r3, 4;
  add.s32 %r9, %r8, %r7;
  add.s32 %r10, %r2, %r9;
  ld.shared.u32 %r11, [%r10];
  add.s32 %r12, %r2, %r8;
  ld.shared.s8 %r13, [%r12+257];
  shr.u32 %r14, %r1, 2;
  mul.wide.u32 %rd7, %r14, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.f32 %f1, [%rd8];
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd10, %rd4, %rd9;
  ld.global.f32 %f2, [%rd10+256];
  fma.rn.f32 %f3, %f1, %f2, %f1;
  add.f32 %f4, %f3, %f2;
  mul.f32 %f5, %f4, %f1;
  sub.f32 %f6, %f5, %f2;
  add.s64 %rd11, %rd5, %rd9;
  st.global.f32 [%rd11], %f6;
  mul.wide.u32 %rd12, %r1, 8;
  add.s64 %rd13, %rd6, %rd12;
  st.global.u32 [%rd13], %r11;
  st.global.u32 [%rd13+4], %r13;
  ret;
}
)";

TEST_CASE("fast forms: the warp forms agree with the fast forms lane by lane, and with values computed here") {
  auto l = one_cta(64, {in_f32("x", 128), out_f32("y", 64), out_int("o", 128)});
  auto k = load(warp_forms_kernel);
  CHECK(fast_op_at(*k, warp_forms_kernel, "ld.shared.u32") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, warp_forms_kernel, "ld.shared.s8") == exec::fast_op::ld);
  CHECK(fast_op_at(*k, warp_forms_kernel, "fma.rn.f32") == exec::fast_op::f32_arith);
  CHECK(fast_op_at(*k, warp_forms_kernel, "sub.f32") == exec::fast_op::f32_arith);
  observed r = same_both_ways<float32_box>(*k, l);
  REQUIRE(r.error.empty());
  same_both_ways<symbolic_box>(*k, l);
  // Warp-wide did run: the accesses come in another order than round robin's.
  float32_box b1, b2;
  CHECK(run_mode(*k, l, b1.d, true, {}, true).events != run_mode(*k, l, b2.d, true, {}, false).events);
  // The values, warp-wide (the default options).
  float32_box b;
  auto ints = cells(*k, l, b.d, 2);
  auto floats = cells(*k, l, b.d, 1);
  REQUIRE(ints.size() == 128);
  REQUIRE(floats.size() == 64);
  static const std::uint64_t shape[] = {128};
  auto input = [](std::uint64_t e) {
    return static_cast<float>(float32_values(exec::input_ref{0, "x", e, shape, exec::rkind::f32}));
  };
  for (std::uint32_t t = 0; t < 64; ++t) {
    INFO("thread " << t);
    const std::uint32_t n = t ^ 1, byte = (255 - n) & 0xff;
    REQUIRE(ints[2 * t]);
    REQUIRE(ints[2 * t + 1]);
    REQUIRE(ints[2 * t]->is_bits());
    REQUIRE(ints[2 * t + 1]->is_bits());
    CHECK((ints[2 * t]->bits & 0xffffffffu) == ((t & 16) ? byte * 0x01010101u : n));
    CHECK((ints[2 * t + 1]->bits & 0xffffffffu) == static_cast<std::uint32_t>(-1 - static_cast<std::int32_t>(n)));
    const float x1 = input(t / 4), x2 = input(64 + t);
    const float p = std::fma(x1, x2, x1), q = p + x2, s = q * x1, want = s - x2;
    REQUIRE(floats[t]);
    const float got = static_cast<float>(floats[t]->r);
    if (std::isnan(want)) CHECK(std::isnan(got));
    else CHECK(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want));
  }
}

// A word stored whole and then covered in part by a narrower store: the word read back is the
// two values' bytes, not the whole one stored first; the word stored whole again at the same place
// holds every byte again (a byte read sees it); a half stored over it shows in the next word read.
// Each thread works on its own word of shared memory. PTX checked with ptxas -arch=sm_80.
constexpr std::string_view overwrite_kernel = R"(
.visible .entry overwrite(.param .u64 o_param)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 buf[128];
  ld.param.u64 %rd1, [o_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  mad.lo.s32 %r5, %r1, 16843009, 67305985;
  st.shared.u32 [%r4], %r5;
  mov.u32 %r6, 238;
  st.shared.u8 [%r4+1], %r6;
  ld.shared.u32 %r7, [%r4];
  ld.shared.u8 %r8, [%r4+1];
  st.shared.u32 [%r4], %r5;
  ld.shared.u8 %r9, [%r4+1];
  ld.shared.u32 %r10, [%r4];
  mov.u32 %r11, 48879;
  st.shared.u16 [%r4+2], %r11;
  ld.shared.u32 %r12, [%r4];
  mul.wide.u32 %rd3, %r1, 20;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  st.global.u32 [%rd4+4], %r8;
  st.global.u32 [%rd4+8], %r9;
  st.global.u32 [%rd4+12], %r10;
  st.global.u32 [%rd4+16], %r12;
  ret;
}
)";

TEST_CASE("fast forms: a value covered in part by a later store is read as pieces, on every path") {
  auto l = one_cta(32, {out_int("o", 160)});
  auto k = load(overwrite_kernel);
  observed r = same_both_ways<float32_box>(*k, l);
  REQUIRE(r.error.empty());
  float32_box b;
  auto o = cells(*k, l, b.d, 0);
  REQUIRE(o.size() == 160);
  for (std::uint32_t t = 0; t < 32; ++t) {
    INFO("thread " << t);
    const std::uint32_t v = t * 0x01010101u + 0x04030201u;  // the word each thread stores
    const std::uint32_t want[5] = {(v & 0xffff00ffu) | 0xee00u, 0xeeu, (v >> 8) & 0xffu, v,
                                   (v & 0xffffu) | 0xbeef0000u};
    for (std::uint32_t i = 0; i < 5; ++i) {
      REQUIRE(o[5 * t + i]);
      REQUIRE(o[5 * t + i]->is_bits());
      CHECK((o[5 * t + i]->bits & 0xffffffffu) == want[i]);
    }
  }
}

TEST_CASE("fast forms: a lane whose symbolic arith fails stops the warp form; the error is the lane-by-lane one") {
  // From thread 37 (the second warp's lane 5) on, %f13 is +inf and %f12 is 0 as symbolic values:
  // +inf · 0 has no real value, so the warp form (warp_arith_lanes) runs lanes 32..36 and hands
  // lane 37 back; its error must be the one the lanes one by one meet.
  auto l = one_cta(1024, {in_f32("x", 3 * 1024), out_f32("y", 1024)});
  const std::string prefix = R"(add.f32 %f11, %f1, 0f7F800000;
  mul.f32 %f12, %f2, 0f00000000;
  setp.ge.u32 %p4, %r1, 37;
  selp.f32 %f13, %f11, %f1, %p4;
  )";
  for (const char* op : {"mul.f32 %f10, %f13, %f12;", "fma.rn.f32 %f10, %f13, %f12, %f1;", "mul.rz.f32 %f10, %f12, %f13;",
                         "sub.f32 %f10, %f13, %f11;"}) {
    INFO(op);
    std::string text = fast_float_kernel(prefix + op);
    auto k = load(text);
    CHECK(fast_op_at(*k, text, op) == exec::fast_op::f32_arith);
    observed sym = same_both_ways<symbolic_box>(*k, l);
    CHECK(sym.error.rfind("domain t37 ", 0) == 0);
    same_both_ways<float32_box>(*k, l);  // (+inf · 0 is a NaN there, no error)
  }
}

TEST_CASE("fast forms: the step limit and the progress callback fire at the same steps") {
  auto k = load(integer_kernel("mov.u64 %rd30, %rd24;"));
  auto l = one_cta(64, {out_int("out", 1024, 8)});
  for (auto [fast, warp_wide] : {std::pair{true, false}, std::pair{false, false}, std::pair{true, true}}) {
    INFO("fast forms " << fast << ", warp-wide " << warp_wide);
    exec::engine_options o;
    o.max_steps = 1000;
    exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
    observed r = run_mode(*k, l, d, fast, o, warp_wide);
    CHECK(r.steps == 1001);
    CHECK(r.error.find("more than 1000 thread-instructions") != std::string::npos);
    std::vector<std::uint64_t> calls;
    exec::engine_options p;
    p.progress = [&](std::uint64_t n) { calls.push_back(n); };
    p.progress_every = 97;
    observed full = run_mode(*k, l, d, fast, p, warp_wide);
    REQUIRE(full.error.empty());
    REQUIRE(calls.size() == full.steps / 97);
    for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i] == 97 * (i + 1));
  }
}

}  // namespace
