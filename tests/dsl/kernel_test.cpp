// The kernel language (dsl/kernel.hpp): scheduler and race cases stated as a few lines of C++,
// run through the unchanged pipeline: PTX parser and lifter, exec::engine in the symbolic
// domain with the race context observing, canon deciding outputs, and check::check_pair. Every
// report must point at the C++ line that emitted the offending instruction.
#include <algorithm>
#include <gpueq/canon.hpp>
#include <gpueq/check.hpp>
#include <gpueq/dsl/kernel.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#ifdef GPUEQ_PTXAS
#include <unistd.h>
#endif

namespace kl = gpueq::dsl::kl;
using namespace gpueq;

namespace {

// A kernel-language kernel parsed, lifted and decoded, in the form the exec tests run.
std::unique_ptr<exec_test::kernel> load(const kl::kernel& k) {
  auto r = std::make_unique<exec_test::kernel>();
  r->module = k.module();
  r->program = exec::decode(r->module, r->module.functions[0]);
  return r;
}

// The race context's report of a run of kernel-language kernel m, as text with C++ lines.
std::string report_text(const race::context& ctx, const ptx::module& m) {
  auto lines = race::source_lines(m, m.functions[0]);
  return race::format(ctx.result(), ctx.info(), std::span<const race::source_line>(lines));
}

// "kernel_test.cpp:LINE)" as reports print a C++ position (race reports give the full path,
// run errors the file name; both close the position with a parenthesis).
std::string at_line(unsigned line) {
  std::string file = __FILE__;
  return file.substr(file.find_last_of('/') + 1) + ":" + std::to_string(line) + ")";
}

// A single-kernel pair spec for check::check_pair: reference and candidate are the kernel.
check::single_kernel single(const kl::kernel& k, std::map<std::string, check::tensor_spec> tensors, std::uint32_t threads) {
  return check::single_kernel_pair(k.module(), k.name(), k.params(), std::move(tensors), {threads, 1, 1});
}
check::tensor_spec in(std::uint64_t n) { return {check::dtype::f32, {n}, check::role::input}; }
check::tensor_spec out(std::uint64_t n) { return {check::dtype::f32, {n}, check::role::output}; }

// Shared-memory tree reduction of x[0..n) into y[0] by n threads; `barrier` false drops the
// barrier inside the tree loop. Returns the line of the tree step (the racing statement).
unsigned tree_reduction(kl::kernel& k, unsigned n, bool barrier) {
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto s = k.shared_f32("s", n);
  kl::i32 t = k.tid_x();
  s[t] = x[t];
  k.sync();
  unsigned step_line = 0;
  for (unsigned stride = n / 2; stride > 0; stride /= 2) {
    kl::if_(t < stride, [&] { s[t] = s[t] + s[t + stride]; }); step_line = __LINE__;
    if (barrier) k.sync();
  }
  kl::if_(t == 0, [&] { y[0] = s[0]; });
  return step_line;
}

// The sum of x[0..n) as a term, for canon to compare a kernel's output against.
term::term_id sum_of_inputs(term::store& s, unsigned n) {
  std::vector<term::term_id> xs;
  for (std::uint32_t i = 0; i < n; ++i) xs.push_back(s.input("x", {i}));
  return s.add(xs);
}

}  // namespace

TEST_CASE("the generated PTX carries the C++ line of every instruction and parses back") {
  kl::kernel k("axpy");
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto a = k.scalar_f32("a");
  kl::i32 t = k.tid_x();
  y[t] = a * x[t] + 1.0f; const unsigned line = __LINE__;
  std::string text = k.ptx();
  CAPTURE(text);
  CHECK(text.find(".file\t1 \"" + std::string(__FILE__) + "\"") != std::string::npos);
  CHECK(text.find(".loc\t1 " + std::to_string(line) + " ") != std::string::npos);
  CHECK(k.params() == std::vector<std::string>{"x", "y", "a"});
  ptx::module m = k.module();
  REQUIRE(m.functions.size() == 1);
  const ptx::function& f = m.functions[0];
  CHECK(m.str(f.name) == "axpy");
  CHECK(f.params.size() == 3);
  bool store_found = false;
  for (auto& i : f.instructions)
    if (i.op == ptx::opcode::st) {
      store_found = true;
      CHECK(i.loc.line == line);
      CHECK(m.files.at(i.loc.file) == __FILE__);
    }
  CHECK(store_found);
  // The printer reads it back to the same instructions (the text is ordinary PTX).
  ptx::module again = ptx::parse(ptx::print(m), "again.ptx");
  REQUIRE(again.functions[0].instructions.size() == f.instructions.size());
  for (std::size_t i = 0; i < f.instructions.size(); ++i) CHECK(again.functions[0].instructions[i].same_as(f.instructions[i]));
}

TEST_CASE("a shared-memory tree reduction is race-free and computes the sum") {
  kl::kernel k("tree_sum");
  tree_reduction(k, 64, true);
  auto kk = load(k);
  exec::launch l = exec_test::one_cta(64, {exec_test::in_f32("x", 64), exec_test::out_f32("y", 1)});
  exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(1));
  race::context obs;
  auto r = exec_test::run(*kk, l, f.d, &obs);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(obs.result().clean(), report_text(obs, kk->module));
  REQUIRE(r.out["y"][0].has_value());
  auto v = canon::decide(f.s, *r.out["y"][0], sum_of_inputs(f.s, 64));
  CHECK_MESSAGE(v.kind == canon::verdict_kind::equal, v.reason);
  // and not the sum of one element fewer
  std::vector<term::term_id> fewer;
  for (std::uint32_t i = 0; i < 63; ++i) fewer.push_back(f.s.input("x", {i}));
  CHECK(canon::decide(f.s, *r.out["y"][0], f.s.add(fewer)).kind == canon::verdict_kind::different);

  // The checker takes it unchanged: race-free, equivalent to itself.
  auto c = single(k, {{"x", in(64)}, {"y", out(1)}}, 64);
  auto res = check::check_pair(c.spec, c.pair);
  CHECK_MESSAGE(res.v == check::verdict::equivalent, res.summary);
}

TEST_CASE("without the barrier the tree reduction races, and the report names the C++ line") {
  kl::kernel k("tree_sum_racy");
  unsigned line = tree_reduction(k, 64, false);
  auto kk = load(k);
  exec::launch l = exec_test::one_cta(64, {exec_test::in_f32("x", 64), exec_test::out_f32("y", 1)});
  exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(1));
  race::context obs;
  auto r = exec_test::run(*kk, l, f.d, &obs);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  const race::report& rep = obs.result();
  CHECK_FALSE(rep.race_free());
  REQUIRE(!rep.races.empty());
  std::string text = report_text(obs, kk->module);
  CAPTURE(text);
  CHECK(text.find("on shared s[") != std::string::npos);
  CHECK(text.find("(" + std::string(__FILE__) + ":" + std::to_string(line) + ")") != std::string::npos);
  // Both sides of the first race are instructions of the tree step.
  auto lines = race::source_lines(kk->module, kk->module.functions[0]);
  CHECK(lines[rep.races[0].example.first.instruction].cuda_line == line);
  CHECK(lines[rep.races[0].example.second.instruction].cuda_line == line);

  auto c = single(k, {{"x", in(64)}, {"y", out(1)}}, 64);
  auto res = check::check_pair(c.spec, c.pair);
  CHECK(res.v == check::verdict::race);
  CHECK(res.summary.find(at_line(line)) != std::string::npos);
}

TEST_CASE("a kernel that writes a tensor bound as input only still has its race found") {
  // check_pair leaves reads of input-only tensors unrecorded (race::options::skip_input_reads);
  // a write to one makes the run incomplete and the side runs again recording every read.
  kl::kernel k("shift_in_place");
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  kl::i32 t = k.tid_x();
  kl::if_(t < 63, [&] { x[t] = x[t + 1]; }); const unsigned line = __LINE__;
  y[t] = x[t];
  auto kk = load(k);
  exec::launch l = exec_test::one_cta(64, {exec_test::in_f32("x", 64), exec_test::out_f32("y", 64)});
  {
    exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(1));
    race::options skip;
    skip.skip_input_reads = true;
    race::context obs(skip);
    auto r = exec_test::run(*kk, l, f.d, &obs);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(obs.incomplete());
    CHECK(obs.skips_reads(0));
  }
  for (check::role role : {check::role::input, check::role::inout}) {
    CAPTURE(static_cast<int>(role));
    auto c = single(k, {{"x", {check::dtype::f32, {64}, role}}, {"y", out(64)}}, 64);
    auto res = check::check_pair(c.spec, c.pair);
    CHECK(res.v == check::verdict::race);
    CHECK(res.summary.find("x[") != std::string::npos);
    CHECK(res.summary.find(at_line(line)) != std::string::npos);
  }
}

TEST_CASE("a named-barrier producer/consumer is race-free; without the arrive it deadlocks") {
  for (bool with_arrive : {true, false}) {
    CAPTURE(with_arrive);
    kl::kernel k("produce_consume");
    auto x = k.tensor_f32("x");
    auto y = k.tensor_f32("y");
    auto buf = k.shared_f32("buf", 32);
    kl::i32 t = k.tid_x();
    unsigned sync_line = 0;
    kl::if_(t < 32,
            [&] {  // warp 0 produces
              buf[t] = x[t];
              if (with_arrive) k.arrive(1, 64);
            },
            [&] {  // warp 1 consumes
              k.sync(1, 64); sync_line = __LINE__;
              kl::i32 i = t - 32;
              y[i] = buf[i] * 2.0f;
            });
    auto c = single(k, {{"x", in(32)}, {"y", out(32)}}, 64);
    auto res = check::check_pair(c.spec, c.pair);
    CAPTURE(res.summary);
    if (with_arrive) {
      CHECK(res.v == check::verdict::equivalent);
      // and each output is twice its input
      auto kk = load(k);
      exec::launch l = exec_test::one_cta(64, {exec_test::in_f32("x", 32), exec_test::out_f32("y", 32)});
      exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(2));
      race::context obs;
      auto r = exec_test::run(*kk, l, f.d, &obs);
      REQUIRE_MESSAGE(!r.error, r.error->message);
      CHECK(obs.result().clean());
      for (std::uint32_t i = 0; i < 32; ++i)
        CHECK(canon::decide(f.s, *r.out["y"][i], f.s.scale(2, f.s.input("x", {i}))).kind == canon::verdict_kind::equal);
    } else {
      CHECK(res.v == check::verdict::deadlock);
      CHECK(res.summary.find(at_line(sync_line)) != std::string::npos);
    }
  }
}

TEST_CASE("a warp shuffle reduction computes the sum in lane 0 (down) and in every lane (xor)") {
  for (bool butterfly : {false, true}) {
    CAPTURE(butterfly);
    kl::kernel k("warp_sum");
    auto x = k.tensor_f32("x");
    auto y = k.tensor_f32("y");
    kl::i32 t = k.tid_x();
    kl::f32 v = x[t];
    for (int offset = 16; offset > 0; offset /= 2) v += butterfly ? kl::shfl_xor(v, offset) : kl::shfl_down(v, offset);
    if (butterfly) y[t] = v;
    else kl::if_(t == 0, [&] { y[0] = v; });

    auto kk = load(k);
    exec::launch l = exec_test::one_cta(32, {exec_test::in_f32("x", 32), exec_test::out_f32("y", 32)});
    exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(3));
    race::context obs;
    auto r = exec_test::run(*kk, l, f.d, &obs);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(obs.result().clean());
    term::term_id sum = sum_of_inputs(f.s, 32);
    for (std::uint32_t i = 0; i < 32; ++i) {
      if (!butterfly && i > 0) {
        CHECK_FALSE(r.out["y"][i].has_value());
        continue;
      }
      REQUIRE(r.out["y"][i].has_value());
      CHECK(canon::decide(f.s, *r.out["y"][i], sum).kind == canon::verdict_kind::equal);
    }
    // float32 agrees with the exact sum on small integers (exactly representable sums)
    exec_test::fixture<exec::float32_domain> g(exec_test::small_integers(4));
    auto rf = exec_test::run(*kk, l, g.d);
    REQUIRE_MESSAGE(!rf.error, rf.error->message);
    double expected = 0;
    for (std::uint64_t i = 0; i < 32; ++i) expected += exec_test::small_integers(4)("x", i).convert_to<double>();
    CHECK(*rf.out["y"][0] == expected);
  }
}

TEST_CASE("a barrier inside a thread-dependent branch is reported at its C++ line") {
  // Warp 0 waits at a named barrier for 64 threads; warp 1 skips it and exits.
  kl::kernel k("divergent_barrier");
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto s = k.shared_f32("s", 64);
  kl::i32 t = k.tid_x();
  s[t] = x[t];
  unsigned line = 0;
  kl::if_(t < 32, [&] { k.sync(1, 64); line = __LINE__; });
  y[t] = s[t];  // each thread reads its own slot: no race, the barrier alone is wrong
  auto c = single(k, {{"x", in(64)}, {"y", out(64)}}, 64);
  auto res = check::check_pair(c.spec, c.pair);
  CAPTURE(res.summary);
  CHECK(res.v == check::verdict::deadlock);
  CHECK(res.summary.find("barrier 1") != std::string::npos);
  CHECK(res.summary.find(at_line(line)) != std::string::npos);
  for (auto& f : res.findings) CHECK(f.v == check::verdict::deadlock);  // (the kernel is both sides of a single spec)

  // The same barrier with warp 1 reading warp 0's slots, which no barrier orders: a race, found
  // before the run stopped, comes first (check/verdict.hpp's precedence) and the deadlock is
  // reported as a further finding at the same line.
  kl::kernel kr("divergent_barrier_racy");
  auto xr = kr.tensor_f32("x");
  auto yr = kr.tensor_f32("y");
  auto sr = kr.shared_f32("s", 64);
  kl::i32 tr = kr.tid_x();
  sr[tr] = xr[tr];
  unsigned rline = 0;
  kl::if_(tr < 32, [&] { kr.sync(1, 64); rline = __LINE__; });
  yr[tr] = sr[63 - tr];
  auto cr = single(kr, {{"x", in(64)}, {"y", out(64)}}, 64);
  auto resr = check::check_pair(cr.spec, cr.pair);
  CAPTURE(resr.summary);
  CHECK(resr.v == check::verdict::race);
  auto deadlock = std::find_if(resr.findings.begin(), resr.findings.end(),
                               [](const check::finding& f) { return f.v == check::verdict::deadlock; });
  REQUIRE(deadlock != resr.findings.end());
  CHECK(deadlock->message.find("barrier 1") != std::string::npos);
  CHECK(deadlock->message.find(at_line(rline)) != std::string::npos);

  // __syncthreads in a branch taken by half the warps, the rest waiting at another barrier:
  // nobody can move.
  kl::kernel d("split_barriers");
  auto x2 = d.tensor_f32("x");
  kl::i32 t2 = d.tid_x();
  unsigned a_line = 0, b_line = 0;
  kl::if_(t2 < 32, [&] { d.sync(); a_line = __LINE__; }, [&] { d.sync(2, 64); b_line = __LINE__; });
  (void)x2;
  auto c2 = single(d, {{"x", in(1)}}, 64);
  auto res2 = check::check_pair(c2.spec, c2.pair);
  CAPTURE(res2.summary);
  CHECK(res2.v == check::verdict::deadlock);
  CHECK(res2.summary.find(at_line(a_line)) != std::string::npos);
  CHECK(res2.summary.find(at_line(b_line)) != std::string::npos);
}

TEST_CASE("loops with register bounds, exp and division lift to exact real functions") {
  kl::kernel k("softmax_row");
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto n = k.scalar_i32("n");
  kl::i32 t = k.tid_x();
  auto total = k.var(0.0f);
  k.for_(0, n, [&](const kl::i32& j) { total += exp(x[j]); });
  y[t] = exp(x[t]) / total;

  auto kk = load(k);
  bool lifted = false;
  for (auto& i : kk->module.functions[0].instructions) lifted = lifted || i.op == ptx::opcode::lifted;
  CHECK(lifted);
  exec::launch l = exec_test::one_cta(4, {exec_test::in_f32("x", 4), exec_test::out_f32("y", 4)},
                                      {exec::scalar_binding{"n", false, 4}});
  exec_test::fixture<exec::symbolic_domain> f(exec_test::random_rationals(5));
  auto r = exec_test::run(*kk, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint32_t i = 0; i < 4; ++i) {
    std::vector<term::term_id> es;
    for (std::uint32_t j = 0; j < 4; ++j) es.push_back(f.s.exp(f.s.input("x", {j})));
    term::term_id softmax = f.s.div(f.s.exp(f.s.input("x", {i})), f.s.add(es));
    REQUIRE(r.out["y"][i].has_value());
    CHECK(canon::decide(f.s, *r.out["y"][i], softmax).kind == canon::verdict_kind::equal);
  }
}

namespace {
// Every construct of the language in one kernel.
void everything(kl::kernel& k) {
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto ix = k.tensor_i32("ix");
  auto n = k.scalar_i32("n");
  auto a = k.scalar_f32("a");
  auto s = k.shared_f32("s", 128);
  auto si = k.shared_i32("si", 128);
  kl::i32 t = k.tid_x();
  kl::i32 l = k.lane();
  si[t] = ix[t] * 3 + (t << 2) - (t >> 1) + t / 3 + t % 5 + (t & 7) + (t | 1) + (t ^ 2) + max(t, 4) + min(t, -4) + -t;
  s[t] = x[t];
  k.sync();
  kl::f32 v = s[t];
  v = fma(v, a, 2.0f) - v * 0.5 + sqrt(v) + rsqrt(v) + tanh(v) + exp(v) + log(v) + abs(v) + max(v, 0.0f) + min(v, 1) + -v;
  v = kl::select(t < 3 || (!(t >= 5) && t != 4), v, 1.0f / v);
  v += kl::to_f32(t);
  kl::i32 w = kl::to_i32(v);
  v += kl::shfl_down(v, 1) + kl::shfl_up(v, 1, 0xffffffffu, 16) + kl::shfl_xor(v, 2) + kl::shfl_idx(v, l + 1);
  w += kl::shfl_idx(w, 0);
  k.syncwarp();
  k.syncwarp(0x0000ffffu);
  kl::if_(t < 32, [&] { k.arrive(1, 64); }, [&] { k.sync(1, 64); });
  k.while_([&] { return v > 0.0f; }, [&] { v -= 1.0f; });
  k.for_(t, n, [&](const kl::i32& i) { y[i] = v; si[i] += w; }, 32);
  kl::if_(t == 0, [&] { k.ret(); });
  y[t] = s[0];
  s[1] = s[2];
  v = s[3];
  v *= 2;
  v /= s[4];
  s[5] -= v;
  s[6] *= v;
}
}  // namespace

TEST_CASE("every construct lowers to PTX the parser takes back, with a C++ line on each instruction") {
  kl::kernel k("everything");
  everything(k);
  ptx::module m = k.module();
  const ptx::function& f = m.functions[0];
  CHECK(f.instructions.size() > 100);
  for (auto& i : f.instructions) {
    CAPTURE(ptx::print(m, i));
    CHECK(i.loc.file == 1);
    CHECK(i.loc.line > 0);
  }
  CHECK(k.params() == std::vector<std::string>{"x", "y", "ix", "n", "a"});
}

// Only where CMake found ptxas (GPUEQ_PTXAS): the generated text is PTX that NVIDIA's assembler
// accepts, not only text our own parser accepts.
#ifdef GPUEQ_PTXAS
TEST_CASE("ptxas accepts the kernel language's PTX") {
  kl::kernel k("everything");
  everything(k);
  kl::kernel r("tree_sum");
  tree_reduction(r, 128, true);
  for (const kl::kernel* kk : {&k, &r}) {
    namespace fs = std::filesystem;
    fs::path tmp = fs::temp_directory_path() / ("gpueq_kl_" + kk->name() + "_" + std::to_string(::getpid()) + ".ptx");
    {
      std::ofstream o(tmp, std::ios::binary);
      o << kk->ptx();
    }
    std::string cmd = std::string(GPUEQ_PTXAS) + " -arch=sm_80 '" + tmp.string() + "' -o /dev/null";
    CHECK_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
    fs::remove(tmp);
  }
}
#endif

TEST_CASE("misuse is a clear error, never a crash") {
  kl::kernel k("bad");
  auto s = k.shared_f32("s", 4);
  CHECK_THROWS_AS(k.shared_f32("s", 4), std::invalid_argument);             // name taken
  CHECK_THROWS_AS(k.tensor_f32("not a name"), std::invalid_argument);       // not an identifier
  CHECK_THROWS_AS(k.shared_f32("empty", 0), std::invalid_argument);         // no elements
  CHECK_THROWS_AS(s[4] = 1.0f, std::invalid_argument);                      // constant index out of range
  CHECK_THROWS_AS(k.sync(16), std::invalid_argument);                       // barrier id
  CHECK_THROWS_AS(k.arrive(1, 0), std::invalid_argument);                   // arrive needs a count
  CHECK_THROWS_AS(k.sync(1, 48), std::invalid_argument);                    // not a multiple of 32
  CHECK_THROWS_AS(kl::shfl_down(k.var(1.0f), 1, 0xffffffffu, 12), std::invalid_argument);  // width
  kl::kernel other("other");
  kl::i32 t = k.tid_x(), u = other.tid_x();
  CHECK_THROWS_WITH_AS((void)(t + u), doctest::Contains("used in kernel"), std::invalid_argument);
  kl::i32 moved = std::move(t);
  CHECK_THROWS_WITH_AS((void)(t + 1), doctest::Contains("moved-from"), std::invalid_argument);
  (void)moved;
  CHECK_THROWS_AS(k.for_(0, 4, [](const kl::i32&) {}, 0), std::invalid_argument);
  try {
    (void)(t + 1);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("gpueq kernel language") == 0);
  }
}
