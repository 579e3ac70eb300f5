// Decision-procedure benchmarks (issue: foundation): softmax naive vs online for N = 4…1024,
// dot products written as a sequential chain vs a split-K tree for K = 1k…1M, and one attention
// row naive vs tiled online. Prints build time (terms), decision time and the verdict. The dot
// products are built twice: one store operation per multiply-add (store::fma), and as a kernel's
// symbolic run builds them (exec::symbolic_domain: open sums closed into one dot).
//   build/benchmarks/bench_decide [--quick]
#include "bench.hpp"
#include "../tests/common/term_families.hpp"

#include <gpueq/canon.hpp>
#include <gpueq/exec/symbolic.hpp>

#include <cstring>

using namespace gpueq;

static const char* name(canon::verdict_kind k) { return canon::to_string(k).data(); }

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  bench::header("gpueq decision benchmarks (exact normal forms unless noted)");
  for (std::uint32_t n : {4u, 64u, 1024u}) {
    term::store s;
    std::vector<term::term_id> a, b;
    double build = bench::seconds([&] {
      a = families::softmax_naive(s, n);
      b = families::softmax_online(s, n);
    });
    canon::verdict_kind worst = canon::verdict_kind::equal;
    double decide = bench::seconds([&] {
      canon::decider d(s);
      for (std::uint32_t i = 0; i < n; ++i) {
        auto v = d(a[i], b[i]);
        if (v.kind != canon::verdict_kind::equal) worst = v.kind;
      }
    });
    bench::row("softmax naive vs online, N=" + std::to_string(n) + " (all outputs)", build, decide, name(worst));
  }
  std::vector<std::uint32_t> ks{1000, 10000, 100000, 1000000};
  if (quick) ks.resize(2);
  for (std::uint32_t k : ks) {
    for (bool fast : {false, true}) {
      term::store s;
      term::term_id a = 0, b = 0;
      double build = bench::seconds([&] {
        a = families::dot_chain(s, k);
        b = families::dot_tree(s, k);
      });
      canon::verdict v;
      canon::decide_options o;
      o.fast = fast;
      double decide = bench::seconds([&] { v = canon::decide(s, a, b, o); });
      bench::row("dot chain vs split-K tree, K=" + std::to_string(k) + (fast ? " (--fast)" : ""), build, decide,
                 name(v.kind));
    }
    // The same two sums as a symbolic kernel run builds them: fma on the domain's open sums, the
    // split-K partial sums added pairwise, each side closed once (its output).
    term::store s;
    term::term_id a = 0, b = 0;
    double build = bench::seconds([&] {
      exec::symbolic_domain dom(s);
      using real = exec::symbolic_domain::real;
      auto fma = [&](real x, real y, real acc) {
        const real args[3] = {x, y, acc};
        return dom.arith(exec::aop::fma, args, exec::rkind::f32, {});
      };
      auto in = [&](const char* t, std::uint32_t i) { return exec::symbolic_domain::of(families::x(s, t, i)); };
      real acc = exec::symbolic_domain::of(s.zero());
      for (std::uint32_t i = 0; i < k; ++i) acc = fma(in("a", i), in("b", i), acc);
      a = dom.finish(acc);
      std::vector<real> partial(8, exec::symbolic_domain::of(s.zero()));
      for (std::uint32_t i = 0; i < k; ++i) partial[i % 8] = fma(in("a", i), in("b", i), partial[i % 8]);
      b = dom.finish(families::pairwise(std::move(partial), [&](real x, real y) {
        const real args[2] = {x, y};
        return dom.arith(exec::aop::add, args, exec::rkind::f32, {});
      }));
      dom.end_run();
    });
    canon::verdict v;
    double decide = bench::seconds([&] { v = canon::decide(s, a, b); });
    bench::row("dot via open sums (as a kernel run), K=" + std::to_string(k), build, decide,
               name(v.kind));
  }
  {
    term::store s;
    std::vector<term::term_id> a, b;
    const std::uint32_t n = quick ? 64 : 512, d = 64;
    double build = bench::seconds([&] {
      term::term_id scale = s.constant(support::rational(1, 8));
      a = families::attention_naive(s, n, d, scale);
      b = families::attention_online(s, n, d, scale, 64);
    });
    canon::verdict_kind worst = canon::verdict_kind::equal;
    double decide = bench::seconds([&] {
      canon::decider dd(s);
      for (std::uint32_t c = 0; c < d; ++c) {
        auto v = dd(a[c], b[c]);
        if (v.kind != canon::verdict_kind::equal) worst = v.kind;
      }
    });
    bench::row("attention row naive vs online, n=" + std::to_string(n) + " d=64", build, decide, name(worst));
  }
  std::printf("peak memory: %.0f MiB\n", bench::peak_mib());
}
