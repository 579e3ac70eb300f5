// The engine's fast forms over the whole kernel corpus: every kernel of every pair (three CTAs of
// a larger grid) runs with engine_options::fast_forms on and off, in float32 (random inputs) and
// symbolically where the run is small, and the two
// runs must agree on the error, the step count, every output value (bit for bit in float32, the
// same term in one store symbolically) and the whole sequence of observer events (what the race
// context sees), hashed. tests/exec/fast_forms_test.cpp sweeps the forms instruction by
// instruction; this is the same law on the code nvcc emits.
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec_json.hpp>
#include <gpueq/support/hash.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>

using namespace gpueq;

namespace {

// A running hash of every observer event, in order, and how many there were.
struct event_hash {
  std::uint64_t h = 0, events = 0;
  void mix(std::uint64_t v) { h = support::mix64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6))); }
  void on_start(const exec::run_info& i) {
    mix(i.threads);
    mix(i.regions.size());
    ++events;
  }
  void on_access(const exec::access& a) {
    for (std::uint64_t v : {std::uint64_t{a.thread}, std::uint64_t{a.region}, a.offset, std::uint64_t{a.width},
                            std::uint64_t{static_cast<std::uint8_t>(a.kind)}, std::uint64_t{a.instruction},
                            std::uint64_t{static_cast<std::uint8_t>(a.value.k)}, a.value.id,
                            std::uint64_t{static_cast<std::uint8_t>(a.op)}})
      mix(v);
    ++events;
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    for (std::uint64_t v : {std::uint64_t{r.thread}, std::uint64_t{r.waits}, std::uint64_t{r.instruction},
                            std::uint64_t{static_cast<std::uint8_t>(k.kind)}, std::uint64_t{k.id}, std::uint64_t{g},
                            std::uint64_t{e}})
      mix(v);
    ++events;
  }
  void on_barrier_complete(const exec::barrier_instance& b) {
    mix(b.key.id);
    mix(b.generation);
    mix(b.expected);
    for (auto& p : b.participants) mix(p.thread);
    ++events;
  }
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g) {
    for (std::uint64_t v : {std::uint64_t{r.thread}, std::uint64_t{r.instruction}, k.id, std::uint64_t{g}}) mix(v);
    ++events;
  }
  void on_exit(std::uint32_t t, std::uint32_t pc) {
    mix(t);
    mix(pc);
    ++events;
  }
};

double input_value(const exec::input_ref& r) {
  std::uint64_t h = support::mix64(r.element * 0x9e3779b97f4a7c15ull + std::hash<std::string_view>{}(r.name));
  double u = static_cast<double>(h >> 11) / static_cast<double>(1ull << 53) * 2 - 1;
  return r.kind == exec::rkind::integer ? std::round(u * 8) : exec::floats::round_to(u, r.kind);
}

template <class R>
struct side_run {
  check::grid_run<R> run;
  event_hash log;
};

template <class D>
side_run<typename D::result> run_side(D& d, const exec::program& p, const check::pair_spec& spec,
                                      const check::kernel_spec& k, bool fast) {
  side_run<typename D::result> r;
  exec::engine_options o;
  o.fast_forms = fast;
  r.run = check::run_grid<D, event_hash>(
      d, p, spec, k, [&](const exec::dim3&) -> event_hash& { return r.log; }, {}, o);
  return r;
}

template <class R>
void same_runs(const side_run<R>& fast, const side_run<R>& slow) {
  REQUIRE(fast.run.error.has_value() == slow.run.error.has_value());
  if (fast.run.error) {
    CHECK(fast.run.error->kind == slow.run.error->kind);
    CHECK(fast.run.error->thread == slow.run.error->thread);
    CHECK(fast.run.error->instruction == slow.run.error->instruction);
    CHECK(fast.run.error->message == slow.run.error->message);
  }
  CHECK(fast.run.steps == slow.run.steps);
  CHECK(fast.run.conflicts == slow.run.conflicts);
  CHECK(fast.log.events == slow.log.events);
  CHECK(fast.log.h == slow.log.h);
  REQUIRE(fast.run.values.size() == slow.run.values.size());
  for (auto& [name, vals] : fast.run.values) {
    const auto& other = slow.run.values.at(name);
    REQUIRE(vals.size() == other.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < vals.size(); ++i)
      if (vals[i].has_value() != other[i].has_value() || (vals[i] && !check::same_result(*vals[i], *other[i]))) ++differ;
    INFO(name);
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("corpus kernels: fast forms give the generic path's runs (float32 and symbolic)") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels";
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().filename().string().ends_with(".pair.json")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::set<std::string> done;
  std::size_t sides = 0, symbolic_sides = 0;
  for (auto& file : files) {
    check::pair_spec spec = check::load_spec(file.string());
    check::resolved_pair pair = check::resolve(spec);
    for (bool candidate : {false, true}) {
      if (!check::has_kernel(spec, candidate)) continue;  // a specification reference
      const check::kernel_spec& k = candidate ? spec.candidate : spec.reference;
      std::string key = k.path + "|" + k.entry + "|" + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) +
                        "|" + std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]);
      for (auto& [n, t] : spec.tensors) key += "|" + n + std::to_string(t.elements());
      if (!done.insert(key).second) continue;
      INFO(file.string() << (candidate ? " candidate " : " reference ") << k.ptx);
      // Three CTAs of a larger grid (the first, one in the middle, the last): the generic path is
      // slow, and CTAs of one grid run the same instructions.
      check::kernel_spec some = k;
      if (some.ctas.empty()) {
        std::vector<exec::dim3> all = check::ctas_of(k);
        if (all.size() > 3) some.ctas = {all.front(), all[all.size() / 2], all.back()};
      }
      const ptx::module& m = candidate ? pair.candidate : pair.reference;
      std::size_t entry = candidate ? pair.candidate_entry : pair.reference_entry;
      exec::program p = exec::decode(m, m.functions[entry]);
      exec::float32_domain d1(input_value), d2(input_value);
      auto fast = run_side(d1, p, spec, some, true);
      auto slow = run_side(d2, p, spec, some, false);
      same_runs(fast, slow);
      ++sides;
      // Symbolically where the run is small enough to run twice here (the GEMMs' symbolic runs
      // take seconds; their float32 runs above cover the same instructions).
      if (fast.run.steps > 400'000) continue;
      ptx::module lifted = m;
      ptx::lift(lifted);
      exec::program lp = exec::decode(lifted, lifted.functions[entry]);
      term::store s;
      exec::symbolic_domain sd(s);
      auto sfast = run_side(sd, lp, spec, some, true);
      auto sslow = run_side(sd, lp, spec, some, false);  // the same store: equal values are equal ids
      same_runs(sfast, sslow);
      ++symbolic_sides;
    }
  }
  CHECK(sides >= 40);
  CHECK(symbolic_sides >= 20);
}
