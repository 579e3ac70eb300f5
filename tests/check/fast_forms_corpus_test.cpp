// The engine's fast forms over the whole kernel corpus: every kernel of every pair (three CTAs of
// a larger grid) runs with engine_options::fast_forms on and off, in float32 (random inputs) and
// symbolically where the run is small, and the two
// runs must agree on the error, the step count, every output value (bit for bit in float32, the
// same term in one store symbolically) and the whole sequence of observer events (what the race
// context sees), hashed. A third run, warp-wide (engine_options::warp_wide, the default), must
// agree with the fast round-robin run on all of it except the order of the events, and on that
// too when it met a race (it then starts over under round robin); symbolically an output may be a
// term of another shape, equal over the reals (same_runs' by_value). tests/exec/fast_forms_test.cpp sweeps the forms instruction by
// instruction; this is the same law on the code nvcc emits.
#include <gpueq/canon/decide.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec_json.hpp>
#include <gpueq/race/context.hpp>
#include <gpueq/support/hash.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <type_traits>

#include <deque>
#include <filesystem>
#include <set>
#include <string>

using namespace gpueq;

namespace {

// A running hash of every observer event, in order (h), the sum of the events' hashes, which
// ignores their order (sum), and how many there were. One per CTA run: a run that starts over
// (check::run_cta, after warp-wide execution met a race) starts it again. With a race
// context attached, it also decides races, so that check::run_cta starts such runs over.
struct event_hash {
  std::uint64_t h = 0, sum = 0, events = 0;
  race::context* ctx = nullptr;
  std::uint64_t e = 0;  // the event being hashed
  void mix(std::uint64_t v) { e = support::mix64(e ^ (v + 0x9e3779b97f4a7c15ull + (e << 6))); }
  // run_local: a part of the event that only its order gives (a sequence identity's number, which
  // the run hands out in order of first use): in h, not in sum.
  void done(std::uint64_t run_local = 0) {
    sum += e;
    mix(run_local);
    h = support::mix64(h ^ (e + 0x9e3779b97f4a7c15ull + (h << 6)));
    e = 0;
    ++events;
  }
  bool found_race() const { return ctx && ctx->found_race(); }
  void on_start(const exec::run_info& i) {
    h = sum = events = 0;
    if (ctx) ctx->on_start(i);
    mix(i.threads);
    mix(i.regions.size());
    done();
  }
  void on_access(const exec::access& a) {
    if (ctx) ctx->on_access(a);
    for (std::uint64_t v : {std::uint64_t{a.thread}, std::uint64_t{a.region}, a.offset, std::uint64_t{a.width},
                            std::uint64_t{static_cast<std::uint8_t>(a.kind)}, std::uint64_t{a.instruction},
                            std::uint64_t{static_cast<std::uint8_t>(a.value.k)},
                            std::uint64_t{static_cast<std::uint8_t>(a.op)}})
      mix(v);
    const bool numbered = a.value.k == exec::value_identity::kind::sequence;
    if (!numbered) mix(a.value.id);
    done(numbered ? a.value.id : 0);
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t x) {
    if (ctx) ctx->on_barrier_register(r, k, g, x);
    for (std::uint64_t v : {std::uint64_t{r.thread}, std::uint64_t{r.waits}, std::uint64_t{r.instruction},
                            std::uint64_t{static_cast<std::uint8_t>(k.kind)}, std::uint64_t{k.id}, std::uint64_t{g},
                            std::uint64_t{x}})
      mix(v);
    done();
  }
  void on_barrier_complete(const exec::barrier_instance& b) {
    if (ctx) ctx->on_barrier_complete(b);
    mix(b.key.id);
    mix(b.generation);
    mix(b.expected);
    for (auto& p : b.participants) mix(p.thread);
    done();
  }
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g) {
    if (ctx) ctx->on_barrier_acquire(r, k, g);
    for (std::uint64_t v : {std::uint64_t{r.thread}, std::uint64_t{r.instruction}, k.id, std::uint64_t{g}}) mix(v);
    done();
  }
  void on_exit(std::uint32_t t, std::uint32_t pc) {
    if (ctx) ctx->on_exit(t, pc);
    mix(t);
    mix(pc);
    done();
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
  std::deque<event_hash> logs;  // one per CTA run
  event_hash log;               // all of them: h chained in CTA order, sums and counts added
  bool raced = false;           // the race context (warp-wide runs only) found a race
  bool warp = false;
};

// fast: engine_options::fast_forms; warp: engine_options::warp_wide, with a race context (so that
// a racy run starts over under round robin, as every pipeline's runs do).
template <class D>
side_run<typename D::result> run_side(D& d, const exec::program& p, const check::pair_spec& spec,
                                      const check::kernel_spec& k, bool fast, bool warp = false) {
  side_run<typename D::result> r;
  race::context ctx;
  exec::engine_options o;
  o.fast_forms = fast;
  o.warp_wide = warp;
  r.warp = warp;
  r.run = check::run_grid<D, event_hash>(
      d, p, spec, k,
      [&](const exec::dim3&) -> event_hash& {
        r.logs.emplace_back();
        r.logs.back().ctx = warp ? &ctx : nullptr;
        return r.logs.back();
      },
      [&](const exec::dim3&, event_hash& l) { r.raced = r.raced || l.found_race(); }, o);
  for (const event_hash& l : r.logs) {
    r.log.h = support::mix64(r.log.h ^ l.h);
    r.log.sum += l.sum;
    r.log.events += l.events;
  }
  return r;
}

// by_value (a symbolic warp-wide run against round robin): a pair of terms that differ must be
// equal over the reals (canon::decide). The symbolic domain's open sums take their shape from
// the order in which threads continue a shared partial sum (the first continuation appends in
// place, a later one starts from the closed term: exec/symbolic.hpp), and warp-wide execution
// orders the lanes' data instructions otherwise than round robin; the values are the same.
// Returns how many terms by_value found equal in another shape.
template <class R>
std::size_t same_runs(const side_run<R>& fast, const side_run<R>& slow, term::store* by_value = nullptr) {
  INFO("fast forms: " << (fast.run.error ? fast.run.error->message : std::string("no error"))
                      << "; generic path: " << (slow.run.error ? slow.run.error->message : std::string("no error")));
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
  CHECK(fast.log.sum == slow.log.sum);
  // Warp-wide execution reorders the lanes' events, not what they are; a racy run starts over.
  if (!fast.warp || fast.raced) CHECK(fast.log.h == slow.log.h);
  REQUIRE(fast.run.values.size() == slow.run.values.size());
  std::size_t decided_equal = 0;  // (by_value: terms of another shape, equal over the reals)
  for (auto& [name, vals] : fast.run.values) {
    const auto& other = slow.run.values.at(name);
    REQUIRE(vals.size() == other.size());
    std::size_t differ = 0, first = vals.size();
    for (std::size_t i = 0; i < vals.size(); ++i)
      if (vals[i].has_value() != other[i].has_value() || (vals[i] && !check::same_result(*vals[i], *other[i]))) {
        if constexpr (std::is_same_v<R, term::term_id>)
          if (by_value && vals[i] && canon::decide(*by_value, *vals[i], *other[i]).kind == canon::verdict_kind::equal) {
            ++decided_equal;
            continue;
          }
        ++differ;
        first = std::min(first, i);
      }
    std::ostringstream where;
    where << name << (std::is_same_v<R, double> ? " (float32)" : " (symbolic)");
    if (first < vals.size()) {
      where << ", first difference at element " << first;
      if (vals[first] && other[first]) where << ": fast forms " << *vals[first] << ", generic path " << *other[first];
    }
    INFO(where.str());
    CHECK(differ == 0);
  }
  return decided_equal;
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
  std::size_t sides = 0, symbolic_sides = 0, warp_raced = 0, reshaped = 0;
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
      exec::float32_domain d3(input_value);
      auto warp = run_side(d3, p, spec, some, true, true);
      same_runs(warp, fast);
      warp_raced += warp.raced;
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
      reshaped += same_runs(run_side(sd, lp, spec, some, true, true), sfast, &s);
      ++symbolic_sides;
    }
  }
  CHECK(sides >= 40);
  CHECK(symbolic_sides >= 20);
  CHECK(warp_raced >= 3);  // the racy kernels of bugs/ ran warp-wide, met their race and started over
  MESSAGE(reshaped << " symbolic warp-wide outputs are terms of another shape, equal over the reals");
}
