// What the race context costs (issue 5): a 1024-thread CTA that passes values around a shared
// ring through thousands of barriers (every iteration: store, __syncthreads, read a neighbour's
// element, __syncthreads), written in the kernel language, run in float32 without an observer,
// with the race context, and with the race context plus the inter-CTA footprint (what gpueq
// check runs); then the same in the symbolic domain. The context's cost at a barrier is in the
// number of threads (one clock per barrier instance), never in the size of memory.
//   bench_race [iterations [symbolic iterations]]     (default 2000, i.e. 4000 barriers; 200)
#include "bench.hpp"

#include <gpueq/check/driver.hpp>
#include <gpueq/dsl/kernel.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace gpueq;
namespace kl = gpueq::dsl::kl;

namespace {

constexpr unsigned threads = 1024;

struct counting_observer {  // the observer interface with nothing behind it but a counter
  std::uint64_t accesses = 0, barriers = 0;
  void on_start(const exec::run_info&) {}
  void on_access(const exec::access&) { ++accesses; }
  void on_barrier_register(const exec::barrier_registration&, exec::barrier_key, std::uint32_t, std::uint32_t) {}
  void on_barrier_complete(const exec::barrier_instance&) { ++barriers; }
  void on_barrier_acquire(const exec::barrier_registration&, exec::barrier_key, std::uint32_t) {}
  void on_exit(std::uint32_t, std::uint32_t) {}
};

// The ring kernel and its single-kernel spec.
ptx::module ring_kernel(int iterations, check::pair_spec& spec) {
  std::string name = "ring_pass_" + std::to_string(iterations);
  kl::kernel k(name);
  auto x = k.tensor_f32("x");
  auto y = k.tensor_f32("y");
  auto ring = k.shared_f32("ring", threads);
  kl::i32 t = k.tid_x();
  auto v = k.var(0.0f);
  v = x[t];
  k.for_(0, iterations, [&](const kl::i32&) {
    ring[t] = v;
    k.sync();
    v = ring[(t + 1) & static_cast<int>(threads - 1)] * 0.5f + v * 0.5f;
    k.sync();
  });
  y[t] = v;
  check::single_kernel c = check::single_kernel_pair(k.module(), name, k.params(),
                                                     {{"x", {check::dtype::f32, {threads}, check::role::input}},
                                                      {"y", {check::dtype::f32, {threads}, check::role::output}}},
                                                     {threads, 1, 1}, "(bench_race)");
  spec = std::move(c.spec);
  return k.module();
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  int symbolic_iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  check::pair_spec spec;
  ptx::module m = ring_kernel(iterations, spec);
  exec::program p = exec::decode(m, m.functions[0]);
  exec::launch l = check::make_launch(spec, spec.reference);
  auto inputs = [](const exec::input_ref& in) { return static_cast<double>(in.element % 13) * 0.125 - 0.75; };

  std::uint64_t steps = 0, accesses = 0, barriers = 0;
  auto run = [&](auto& observer) {
    exec::float32_domain d(inputs);
    exec::engine<exec::float32_domain, std::remove_reference_t<decltype(observer)>> e(p, l, d, observer);
    if (auto err = e.run()) {
      std::fprintf(stderr, "run failed: %s\n", err->message.c_str());
      std::exit(1);
    }
    steps = e.stats().steps;
  };
  exec::null_observer none;
  double plain = bench::seconds([&] { run(none); }, 3);
  counting_observer counting;
  double counted = bench::seconds([&] { run(counting); }, 1);
  accesses = counting.accesses;
  barriers = counting.barriers;
  bool clean = false;
  double raced = bench::seconds([&] {
    race::context ctx;
    run(ctx);
    clean = ctx.result().clean();
  }, 3);
  double full = bench::seconds([&] {
    race::context ctx;
    race::cta_footprint footprint;
    race::recording_observer obs{&ctx, &footprint};
    run(obs);
  }, 3);
  std::printf("ring kernel: %u threads, %d iterations, %llu barrier instances, %llu shared/global accesses, %llu "
              "thread-instructions; race context: %s\n",
              threads, iterations, static_cast<unsigned long long>(barriers), static_cast<unsigned long long>(accesses),
              static_cast<unsigned long long>(steps), clean ? "race-free" : "REPORTED A RACE (wrong)");
  std::printf("float32 run, %d iterations\n", iterations);
  std::printf("%-52s %10.3f %10s\n", "no observer", plain, "");
  std::printf("%-52s %10.3f %9.0f%%\n", "observer hooks only (counting)", counted, (counted / plain - 1) * 100);
  std::printf("%-52s %10.3f %9.0f%%\n", "race context", raced, (raced / plain - 1) * 100);
  std::printf("%-52s %10.3f %9.0f%%\n", "race context + inter-CTA footprint (gpueq check)", full, (full / plain - 1) * 100);

  // Symbolic, as gpueq check runs a side: with and without the race analysis (fewer iterations:
  // the values are terms now).
  check::check_options with, without;
  without.check_races = false;
  ptx::module ring_module = ring_kernel(symbolic_iterations, spec);
  check::prepared_kernel ring = check::prepare(spec, ring_module, 0, spec.reference, "kernel");
  std::printf("symbolic run, %d iterations (%d barrier instances)\n", symbolic_iterations, 2 * symbolic_iterations);
  double times[2] = {};
  for (auto* o : {&without, &with}) {
    term::store s;
    check::kernel_run out;
    double t = bench::seconds([&] { (void)check::run_side(s, ring, out, *o); });
    times[o->check_races] = t;
    std::printf("%-52s %10.3f %9s\n", o->check_races ? "race context + inter-CTA footprint (gpueq check)" : "no race analysis", t,
                o->check_races ? (std::to_string(static_cast<int>((times[1] / times[0] - 1) * 100)) + "%").c_str() : "");
  }
  return clean ? 0 : 1;
}
