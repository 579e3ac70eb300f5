// Race witnesses for the hard races (issue 21 item 7), on the corpus kernels bugs/lost_update.cu
// (q[0] = q[0] + 1 by each of 64 threads; lost_update_atomic with atomicAdd) and bugs/handoff.cu
// (warp 0 hands two rounds of 32 values to warp 1 through named barriers 1 and 2;
// handoff_early's consumer arrives at barrier 2 before reading the buffer, handoff_ref after).
// The engine's hold (exec::hold_plan) on its own with inputs chosen here, then check::witness
// through race::check_races, then the random inputs the witnesses use. Every expected value is
// worked out from the kernel's source in the comments, not read back from a run.
#include <gpueq/check/spec_json.hpp>
#include <gpueq/race/driver.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace gpueq;

namespace {

std::string bugs_dir() { return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/bugs/"; }

// The index of the n-th instruction (from 0) of the float32 program with opcode `op` in state
// space `space`.
std::uint32_t nth(const check::prepared_kernel& k, ptx::opcode op, const char* space, std::uint32_t n = 0) {
  const auto& code = k.float32_program.function->instructions;
  for (std::uint32_t i = 0; i < code.size(); ++i) {
    if (code[i].op != op) continue;
    bool in_space = false;
    for (std::uint32_t m : code[i].mods) in_space = in_space || k.module->str(m) == space;
    if (in_space && n-- == 0) return i;
  }
  FAIL("no such instruction");
  return 0;
}

struct witness_side {
  check::pair_spec spec;
  check::resolved_pair pair;
  check::prepared_kernel k;
};
witness_side prepare_side(const std::string& file, bool candidate) {
  witness_side s{check::load_spec(bugs_dir() + file), {}, {}};
  s.pair = check::resolve(s.spec);
  s.k = candidate ? check::prepare(s.spec, s.pair.candidate, s.pair.candidate_entry, s.spec.candidate, "candidate")
                  : check::prepare(s.spec, s.pair.reference, s.pair.reference_entry, s.spec.reference, "reference");
  return s;
}

// One float32 run of CTA 0 with `input(name, element)` as the inputs.
template <class F>
check::grid_run<double> run_cta(const witness_side& s, exec::engine_options o, F input) {
  const exec::dim3 cta{0, 0, 0};
  o.warp_wide = false;  // round robin, thread by thread, as check::witness runs its schedules
  auto g = check::run_grid<exec::float32_domain>(
      s.k, [&] { return exec::float32_domain([&](const exec::input_ref& r) { return input(r.name, r.element); }); }, 1,
      o, std::span<const exec::dim3>(&cta, 1), /*fill_inout=*/false);
  REQUIRE_FALSE(g.error);
  return g;
}

double output_at(const check::grid_run<double>& g, const std::string& tensor, std::uint64_t i) {
  auto v = g.values.at(tensor)[i];
  REQUIRE(v);
  return *v;
}

}  // namespace

TEST_CASE("a hold right after a load interleaves another thread's read-modify-write inside it") {
  witness_side s = prepare_side("lost_update_atomic_vs_plain.pair.json", /*candidate=*/true);
  auto q0 = [](std::string_view, std::uint64_t) { return 1000.0; };
  // One ld.global and one st.global: q[0]'s load and store.
  const std::uint32_t load = nth(s.k, ptx::opcode::ld, ".global"), store = nth(s.k, ptx::opcode::st, ".global");
  // Round robin runs each thread's load, add and store back to back: 64 increments.
  CHECK(output_at(run_cta(s, {}, q0), "q", 0) == 1064);
  // Thread 0 held after its load (it has read 1000) until thread 1 has stored; threads 1..63 then
  // count up to 1063, and thread 0 stores its 1001 last: 63 updates lost.
  exec::engine_options o;
  o.hold = {{0}, load, /*after=*/true, 1, store};
  CHECK(output_at(run_cta(s, o, q0), "q", 0) == 1001);
  // Held before its store instead (the load done, as round robin reaches the store right after
  // it): the same interleaving.
  o.hold = {{0}, store, /*after=*/false, 1, store};
  CHECK(output_at(run_cta(s, o, q0), "q", 0) == 1001);
  // Held right after its store: the update is in memory before the others read; nothing is lost.
  o.hold = {{0}, store, /*after=*/true, 1, store};
  CHECK(output_at(run_cta(s, o, q0), "q", 0) == 1064);
  // The whole of warp 1 held after its loads until thread 0's store (which round robin ran before
  // any thread of warp 1 got to its load: the release never comes while they hold, so they are let
  // go when nothing else can move): threads 32..63 all read 1032 (warp 0's 32 increments) and each
  // of them stores 1033.
  exec::engine_options w;
  for (std::uint32_t t = 32; t < 64; ++t) w.hold.threads.push_back(t);
  w.hold.instruction = load;
  w.hold.after = true;
  w.hold.until_thread = 0;
  w.hold.until_instruction = store;
  CHECK(output_at(run_cta(s, w, q0), "q", 0) == 1033);
}

TEST_CASE("a warp held across named-barrier generations lets a later generation's store come first") {
  // x[i] = i + 1. handoff: y[32k + lane] = 2 * buf[(lane + 1) % 32], buf holding round k's
  // x[32k .. 32k + 31] when the protocol is kept.
  auto x = [](std::string_view, std::uint64_t i) { return static_cast<double>(i + 1); };
  auto kept = [](std::uint64_t i) { return 2.0 * static_cast<double>(i / 32 * 32 + (i % 32 + 1) % 32 + 1); };
  witness_side early = prepare_side("handoff_ref_vs_early.pair.json", /*candidate=*/true);
  witness_side ref = prepare_side("handoff_ref_vs_early.pair.json", /*candidate=*/false);
  // Warp 1 held right before its read of buf in round 0 until thread 1 has stored round 1's
  // buf[1] (nvcc unrolls both loops: the first ld.shared reads round 0, the second st.shared
  // stores round 1).
  auto hold = [](const witness_side& s) {
    exec::engine_options o;
    for (std::uint32_t t = 32; t < 64; ++t) o.hold.threads.push_back(t);
    o.hold.instruction = nth(s.k, ptx::opcode::ld, ".shared", 0);
    o.hold.until_thread = 1;
    o.hold.until_instruction = nth(s.k, ptx::opcode::st, ".shared", 1);
    return o;
  };
  auto plain = run_cta(early, {}, x);
  auto held = run_cta(early, hold(early), x);
  for (std::uint64_t i = 0; i < 64; ++i) {
    CAPTURE(i);
    // Round robin: the consumer reads round 0 as soon as it has arrived at barrier 2, before the
    // producer runs again.
    CHECK(output_at(plain, "y", i) == kept(i));
    // Held: warp 1 has arrived at barrier 2 (the arrive comes before the read), so the producer's
    // bar.sync 2 completes without it, threads 0..31 store round 1 (thread 1's store releases the
    // hold; threads 2..31 come before warp 1 in the sweep), and warp 1 reads round 1 twice.
    CHECK(output_at(held, "y", i) == kept(32 + i % 32));
  }
  // handoff_ref arrives after the read: the producer cannot get to round 1 while warp 1 is held,
  // so nothing moves, the hold is let go, and the run is round robin's.
  auto ref_held = run_cta(ref, hold(ref), x);
  for (std::uint64_t i = 0; i < 64; ++i) CHECK(output_at(ref_held, "y", i) == kept(i));
}

namespace {

// The first race group of a pair's candidate and its witness, as `gpueq race --witness` finds
// them; the reference (the fixed kernel) has no race and so no witness.
std::pair<race::race, check::race_witness> candidate_witness(const check::pair_spec& spec) {
  race::driver_options o;
  o.witnesses = 3;
  auto ks = race::check_races(spec, check::resolve(spec), o);
  REQUIRE(ks.size() == 2);
  CHECK(ks[0].side == "reference");
  CHECK_FALSE(ks[0].r.race_report);
  CHECK(ks[0].witnesses.empty());
  REQUIRE(ks[1].r.race_report);
  REQUIRE_FALSE(ks[1].witnesses.empty());
  return {ks[1].r.race_report->races[0].example, ks[1].witnesses[0]};
}

}  // namespace

TEST_CASE("gpueq race --witness finds the lost update and the early release") {
  {
    check::pair_spec spec = check::load_spec(bugs_dir() + "lost_update_atomic_vs_plain.pair.json");
    auto [ex, w] = candidate_witness(spec);  // the reference uses atomicAdd
    CAPTURE(w.schedule_b);
    CAPTURE(w.note);
    // Round robin: thread 0 runs first and thread 1 next.
    CHECK(ex.first.thread == 0);
    CHECK(ex.second.thread == 1);
    REQUIRE(w.differs);
    CHECK(w.where == "q[0]");
    // Neither reorder of whole threads can lose an update: only a hold inside thread 0's
    // read-modify-write does; 64 increments against 1 (thread 0's store of q + 1 comes last).
    CHECK(w.schedule_b.find("held") != std::string::npos);
    CHECK(w.a - w.b == 63);
    // The starting count is the random input: q + 64 under round robin.
    check::detail::random_inputs in(spec, 7);
    CHECK(w.a == in("q", 0) + 64);
  }
  {
    check::pair_spec spec = check::load_spec(bugs_dir() + "handoff_ref_vs_early.pair.json");
    auto [ex, w] = candidate_witness(spec);
    CAPTURE(w.schedule_b);
    CAPTURE(w.note);
    // The consumer's read (warp 1) ran first, the producer's store of round 1 (warp 0) second.
    CHECK(ex.first.thread / 32 == 1);
    CHECK(ex.second.thread / 32 == 0);
    CHECK(ex.first.kind == exec::access_kind::read);
    CHECK(ex.second.kind == exec::access_kind::write);
    REQUIRE(w.differs);
    CHECK(w.schedule_b.find("warp 1 held right before thread " + std::to_string(ex.first.thread) + "'s read") !=
          std::string::npos);
    // The first output that differs is y[0]: 2 * x[1] (round 0) against 2 * x[33] (round 1).
    check::detail::random_inputs in(spec, 7);
    CHECK(w.where == "y[0]");
    CHECK(w.a == static_cast<double>(2 * static_cast<float>(in("x", 1))));
    CHECK(w.b == static_cast<double>(2 * static_cast<float>(in("x", 33))));
  }
}

TEST_CASE("random inputs: distinct, spread integers, a value per symbolic scalar") {
  check::pair_spec spec;
  spec.tensors["i"] = {check::dtype::s32, {2048}, check::role::input};
  spec.tensors["u"] = {check::dtype::u8, {256}, check::role::inout};
  spec.tensors["f"] = {check::dtype::f32, {8}, check::role::input};
  spec.scalars["a"] = {check::dtype::f32, 0, true};
  spec.scalars["b"] = {check::dtype::f32, 0, true};
  spec.scalars["n"] = {std::nullopt, 64, false};
  for (std::uint64_t seed : {1, 7}) {
    check::detail::random_inputs in(spec, seed);
    // s32 of 2048 elements: 2048 distinct integers in [-1024, 1024), so every one of them.
    std::set<double> is;
    for (std::uint64_t k = 0; k < 2048; ++k) {
      double v = in("i", k);
      CHECK(v == std::nearbyint(v));
      CHECK(v >= -1024);
      CHECK(v < 1024);
      is.insert(v);
    }
    CHECK(is.size() == 2048);
    // Not in index order: a permutation that moves most elements.
    std::uint64_t moved = 0;
    for (std::uint64_t k = 0; k < 2048; ++k) moved += in("i", k) != static_cast<double>(k) - 1024;
    CHECK(moved > 1900);
    // u8 of 256: all of 0..255.
    std::set<double> us;
    for (std::uint64_t k = 0; k < 256; ++k) us.insert(in("u", k));
    CHECK(us.size() == 256);
    CHECK(*us.begin() == 0);
    CHECK(*us.rbegin() == 255);
    for (std::uint64_t k = 0; k < 8; ++k) {
      CHECK(in("f", k) >= -1);
      CHECK(in("f", k) < 1);
    }
    // Each symbolic scalar its own value in [0.5, 1.5); the concrete scalar is not an input here.
    CHECK(in("a", 0) != in("b", 0));
    for (const char* s : {"a", "b"}) {
      CHECK(in(s, 0) >= 0.5);
      CHECK(in(s, 0) < 1.5);
    }
    CHECK(in("n", 0) == 0);
  }
}
