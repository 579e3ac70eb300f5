// Differential fuzz target for the engine's value domains (the domain law, VOLTA Lemma 5). The
// bytes build a small valid PTX kernel, loop-free: 1 to 64 threads, each loads 1 to 3 elements of
// an input tensor (its own or another thread's), computes over f32 registers with add, sub, mul,
// fma, min, max, neg, abs, constants and setp+selp, may exchange a value with another thread
// through shared memory between bar.sync, and stores 1 or 2 elements of an output tensor (some
// under a predicate on its thread index). The kernel runs in the float32, exact and symbolic
// domains on the same inputs, and
//   - the symbolic outputs evaluated exactly at the inputs equal the exact run's outputs;
//   - with small-integer inputs (and magnitudes kept under 2^24 by the generator, so nothing
//     rounds) the float32 outputs equal the exact ones too;
//   - every domain writes the same elements, and none stops with an error, but for the symbolic
//     run on a selection that is not max/min of its comparison (not_structured).
// Any mismatch prints the kernel and traps. The evaluator of symbolic results is written here,
// independent of gpueq/canon, as in tests/exec/harness.hpp.
#include <gpueq/exec.hpp>
#include <gpueq/ptx/parser.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/term/print.hpp>
#include <gpueq/term/store.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

namespace exec = gpueq::exec;
namespace term = gpueq::term;
using rat = gpueq::support::rational;

struct bytes {
  const std::uint8_t* p;
  std::size_t n;
  unsigned next() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  unsigned pick(unsigned k) { return next() % k; }
};

std::string f32_literal(float x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08X", std::bit_cast<std::uint32_t>(x));
  return buf;
}

// A generated kernel and what its launch and checks need.
struct kernel_text {
  std::string ptx;
  std::uint32_t threads = 1, loads = 1, stores = 1;
  bool integers = true;     // inputs are small integers and no value leaves ±2^24: float32 is exact
  bool structured = true;   // every selection on a comparison is max/min of the compared values
  std::uint64_t seed = 0;   // of the input values
  std::uint64_t schedule = 0;
};

kernel_text generate(bytes b) {
  kernel_text k;
  k.threads = 1 + b.pick(64);
  k.loads = 1 + b.pick(3);
  k.stores = 1 + b.pick(2);
  k.integers = b.pick(4) != 0;
  k.seed = b.next() | (b.next() << 8);
  k.schedule = b.next();
  const double limit = 16777216.0;  // 2^24: integers up to this are exact in f32
  std::vector<double> bound;        // per register: a bound on its magnitude (integer inputs)
  std::string body;
  auto reg = [](std::size_t i) { return "%f" + std::to_string(i); };
  auto line = [&](const std::string& s) { body += "  " + s + ";\n"; };
  bool shared = false;

  line("ld.param.u64 %rd1, [in_param]");
  line("ld.param.u64 %rd2, [out_param]");
  line("cvta.to.global.u64 %rd1, %rd1");
  line("cvta.to.global.u64 %rd2, %rd2");
  line("mov.u32 %r1, %tid.x");
  for (std::uint32_t j = 0; j < k.loads; ++j) {  // in[((tid + c) % T) * K + j]
    unsigned c = b.pick(k.threads);
    line("add.u32 %r2, %r1, " + std::to_string(c));
    line("rem.u32 %r2, %r2, " + std::to_string(k.threads));
    line("mad.lo.u32 %r2, %r2, " + std::to_string(k.loads) + ", " + std::to_string(j));
    line("mul.wide.u32 %rd3, %r2, 4");
    line("add.s64 %rd4, %rd1, %rd3");
    line("ld.global.f32 " + reg(bound.size()) + ", [%rd4]");
    bound.push_back(8);
  }
  // An operand: a defined register, or now and then a small integer constant.
  auto operand = [&](double& bnd) {
    if (b.pick(8) == 0) {
      int c = static_cast<int>(b.pick(9)) - 4;
      bnd = std::abs(c);
      return f32_literal(static_cast<float>(c));
    }
    std::size_t r = b.pick(static_cast<unsigned>(bound.size()));
    bnd = bound[r];
    return reg(r);
  };
  const unsigned ops = 1 + b.pick(16);
  const unsigned max_regs = 40;
  for (unsigned i = 0; i < ops && bound.size() < max_regs; ++i) {
    std::string d = reg(bound.size());
    double ba = 0, bb = 0, bc = 0;
    unsigned op = b.pick(10);
    if (op == 9) {  // exchange through shared memory: st; bar; ld another thread's; bar
      shared = true;
      std::string x = reg(b.pick(static_cast<unsigned>(bound.size())));
      double bx = 0;
      for (std::size_t r = 0; r < bound.size(); ++r)
        if (reg(r) == x) bx = bound[r];
      unsigned c = b.pick(k.threads);
      line("mov.u32 %r3, sh");
      line("mad.lo.u32 %r4, %r1, 4, %r3");
      line("st.shared.f32 [%r4], " + x);
      line("bar.sync 0");
      line("add.u32 %r5, %r1, " + std::to_string(c));
      line("rem.u32 %r5, %r5, " + std::to_string(k.threads));
      line("mad.lo.u32 %r5, %r5, 4, %r3");
      line("ld.shared.f32 " + d + ", [%r5]");
      line("bar.sync 0");
      bound.push_back(bx);  // every thread's x has the same bound
      continue;
    }
    if (op == 8) {  // setp + selp
      static constexpr const char* cmps[] = {"lt", "le", "gt", "ge", "lt", "ge", "eq", "ne"};
      const char* cmp = cmps[b.pick(8)];
      std::string a = operand(ba), c = operand(bb);
      line(std::string("setp.") + cmp + ".f32 %p1, " + a + ", " + c);
      unsigned form = b.pick(8);
      std::string x = a, y = c;
      double bx = ba, by = bb;
      if (form >= 4) std::swap(x, y), std::swap(bx, by);
      if (form == 0) {  // a selection that is not max/min of what was compared
        x = operand(bx);
        y = operand(by);
      }
      if (form == 0 || std::string(cmp) == "eq" || std::string(cmp) == "ne") k.structured = false;
      line("selp.f32 " + d + ", " + x + ", " + y + ", %p1");
      bound.push_back(std::max(bx, by));
      continue;
    }
    std::string a = operand(ba);
    if (op == 6 || op == 7) {
      line(std::string(op == 6 ? "neg" : "abs") + ".f32 " + d + ", " + a);
      bound.push_back(ba);
      continue;
    }
    std::string c = operand(bb);
    double r = op == 0 || op == 1 ? ba + bb : op == 2 ? ba * bb : op == 3 ? 0 : std::max(ba, bb);
    std::string e;
    if (op == 3) {
      e = operand(bc);
      r = ba * bb + bc;
    }
    if (k.integers && r > limit) op = 5, r = std::max(ba, bb);  // it could round: max instead
    static constexpr const char* names[] = {"add.f32", "sub.f32", "mul.rn.f32", "fma.rn.f32", "min.f32", "max.f32"};
    line(std::string(names[op]) + " " + d + ", " + a + ", " + c + (op == 3 ? ", " + e : ""));
    bound.push_back(r);
  }
  for (std::uint32_t j = 0; j < k.stores; ++j) {  // out[tid * M + j], under tid < c now and then
    std::string x = reg(bound.size() - 1 - b.pick(static_cast<unsigned>(std::min<std::size_t>(bound.size(), 4))));
    line("mad.lo.u32 %r6, %r1, " + std::to_string(k.stores) + ", " + std::to_string(j));
    line("mul.wide.u32 %rd5, %r6, 4");
    line("add.s64 %rd6, %rd2, %rd5");
    if (b.pick(4) == 0) {
      line("setp.lt.u32 %p2, %r1, " + std::to_string(b.pick(k.threads + 1)));
      line("@%p2 st.global.f32 [%rd6], " + x);
    } else {
      line("st.global.f32 [%rd6], " + x);
    }
  }
  line("ret");
  k.ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\n"
          ".visible .entry fuzz(.param .u64 in_param, .param .u64 out_param)\n{\n"
          "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<" +
          std::to_string(bound.size()) + ">;\n" +
          (shared ? "  .shared .align 4 .b8 sh[" + std::to_string(4 * k.threads) + "];\n" : std::string()) + body + "}\n";
  return k;
}

// The exact value of every input element: small integers in [-8, 8], or rationals p/q.
rat input_value(const kernel_text& k, std::uint64_t element) {
  std::uint64_t h = (k.seed + 1) * 0x9e3779b97f4a7c15ull ^ (element * 0xbf58476d1ce4e5b9ull);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 29;
  if (k.integers) return rat(static_cast<long long>(h % 17) - 8);
  return rat(static_cast<long long>(h % 101) - 50, static_cast<long long>(1 + (h >> 20) % 12));
}

[[noreturn]] void mismatch(const kernel_text& k, const std::string& what) {
  std::fprintf(stderr, "differential: %s\n--- kernel (%u threads, %s inputs, seed %llu, schedule %llu) ---\n%s",
               what.c_str(), k.threads, k.integers ? "integer" : "rational", static_cast<unsigned long long>(k.seed),
               static_cast<unsigned long long>(k.schedule), k.ptx.c_str());
  __builtin_trap();
}

// The exact value of a symbolic result: sums, products with integer exponents, dot, max, min, abs.
class evaluator {
 public:
  evaluator(const term::store& s, const kernel_text& k) : s_(s), k_(k) {}
  rat operator()(term::term_id t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    rat r = compute(t);
    memo_.emplace(t, r);
    return r;
  }

 private:
  rat compute(term::term_id t) {
    switch (s_.kind_of(t)) {
      case term::kind::constant: return s_.value_of(t);
      case term::kind::input: {
        if (s_.tensor_name(t) != "in") mismatch(k_, "a symbolic input of another tensor");
        auto idx = s_.input_indices(t);
        if (idx.size() != 1) mismatch(k_, "a symbolic input with " + std::to_string(idx.size()) + " indices");
        return input_value(k_, idx[0]);
      }
      case term::kind::add: {
        rat r = s_.sum_constant(t);
        for (auto e : s_.sum_entries(t)) r += s_.constant_value(e.coefficient) * (*this)(e.term);
        return r;
      }
      case term::kind::mul: {
        rat r = s_.product_coefficient(t);
        for (auto f : s_.product_entries(t)) r *= gpueq::support::pow_int((*this)(f.base), f.exponent);
        return r;
      }
      case term::kind::dot: {
        rat r = 0;
        for (auto e : s_.dot_entries(t)) r += s_.constant_value(e.coefficient) * (*this)(e.x) * (*this)(e.y);
        return r;
      }
      case term::kind::max:
      case term::kind::min: {
        auto args = s_.args(t);
        rat r = (*this)(args[0]);
        for (auto a : args.subspan(1)) {
          rat x = (*this)(a);
          if (s_.kind_of(t) == term::kind::max ? x > r : x < r) r = x;
        }
        return r;
      }
      case term::kind::apply: {
        if (s_.function_of(t) != term::function::abs || s_.args(t).size() != 1)
          mismatch(k_, "a symbolic function this kernel cannot produce: " + term::to_string(s_, t));
        return abs((*this)(s_.args(t)[0]));
      }
      default: mismatch(k_, "a symbolic result of a kind this kernel cannot produce: " + term::to_string(s_, t));
    }
  }
  const term::store& s_;
  const kernel_text& k_;
  std::unordered_map<term::term_id, rat> memo_;
};

template <class D>
struct outcome {
  std::optional<exec::run_error> error;
  std::vector<std::optional<typename D::result>> out;
};

template <class D>
outcome<D> run(const kernel_text& k, const exec::program& p, const exec::launch& l, D& d) {
  outcome<D> r;
  exec::null_observer none;
  exec::engine_options options;
  options.schedule_seed = k.schedule;
  exec::engine<D> e(p, l, d, none, options);
  r.error = e.run();
  if (r.error) return r;
  try {
    for (std::uint64_t i = 0; i < l.tensors[1].elements(); ++i) {
      auto c = e.output(1, i);
      r.out.push_back(c ? std::optional(e.output_value(1, *c)) : std::nullopt);
    }
  } catch (const exec::run_failure& f) {
    r.error = f.error;
  }
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const kernel_text k = generate(bytes{data, size});
  gpueq::ptx::module m;
  exec::program program;
  try {
    m = gpueq::ptx::parse(k.ptx, "fuzz.ptx");
    program = exec::decode(m, m.functions.at(0));
  } catch (const std::exception& e) {
    mismatch(k, std::string("the generated kernel does not load: ") + e.what());
  }

  exec::launch l;
  l.block = {k.threads, 1, 1};
  for (auto [name, n, input] : {std::tuple{"in", k.threads * k.loads, true}, std::tuple{"out", k.threads * k.stores, false}}) {
    exec::tensor_binding t;
    t.name = name;
    t.kind = exec::rkind::f32;
    t.element_bytes = 4;
    t.shape = {n};
    t.input = input;
    t.output = !input;
    l.tensors.push_back(std::move(t));
  }
  l.params = {{true, 0}, {true, 1}};

  exec::float32_domain f32([&](const exec::input_ref& in) {
    return exec::floats::round_to(input_value(k, in.element).convert_to<double>(), exec::rkind::f32);
  });
  exec::exact_domain exact([&](const exec::input_ref& in) { return input_value(k, in.element); });
  term::store s;
  exec::symbolic_domain sym(s);
  auto rf = run(k, program, l, f32);
  auto re = run(k, program, l, exact);
  auto rs = run(k, program, l, sym);

  if (rf.error) mismatch(k, "the float32 run failed: " + rf.error->message);
  if (re.error) mismatch(k, "the exact run failed: " + re.error->message);
  if (rs.error && !(rs.error->kind == exec::error_kind::not_structured && !k.structured))
    mismatch(k, "the symbolic run failed: " + rs.error->message);

  evaluator eval(s, k);
  for (std::size_t i = 0; i < re.out.size(); ++i) {
    const std::string at = "out[" + std::to_string(i) + "]";
    if (rf.out.at(i).has_value() != re.out[i].has_value()) mismatch(k, at + ": written in one of float32 and exact only");
    if (!re.out[i]) continue;
    const rat& x = *re.out[i];
    if (k.integers && rat(*rf.out[i]) != x)
      mismatch(k, at + ": float32 " + std::to_string(*rf.out[i]) + ", exact " + gpueq::support::to_string(x));
    if (rs.error) continue;
    if (!rs.out.at(i)) mismatch(k, at + ": written in the exact run, not in the symbolic one");
    rat v = eval(*rs.out[i]);
    if (v != x) mismatch(k, at + ": symbolic " + term::to_string(s, *rs.out[i]) + " = " + gpueq::support::to_string(v) + ", exact " + gpueq::support::to_string(x));
  }
  if (!rs.error)
    for (std::size_t i = re.out.size(); i < rs.out.size(); ++i) mismatch(k, "the symbolic run has more outputs");
  return 0;
}
