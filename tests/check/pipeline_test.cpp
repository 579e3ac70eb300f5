// The staged check (issue 19): each side prepared (lifted and decoded) once per check, the one
// verdict vocabulary (names, "expect" spellings, exit codes, run errors' classes), the screen
// stage's findings and precedence, the one grid runner and the race driver.
#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>
#include <gpueq/race/driver.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <mutex>
#include <set>
#include <string>

using namespace gpueq;

namespace {

check::pair_spec corpus(const char* file) {
  return check::load_spec((std::filesystem::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels" / file).string());
}

}  // namespace

TEST_CASE("a check decodes each side twice at most: once lifted, once for float32") {
  // A pair that differs: the run, the float32 side report and the counterexample replay all read
  // the prepared kernels, so 2 sides x 2 programs = 4 decodes, however many stages ran.
  check::pair_spec spec = corpus("bugs/dense_relu_ref_vs_noclip.pair.json");
  check::resolved_pair pair = check::resolve(spec);
  for (unsigned threads : {1u, 2u}) {
    check::check_options o;
    o.threads = threads;
    std::uint64_t before = exec::decode_count().load();
    check::check_result r = check::check_pair(spec, pair, o);
    std::uint64_t decodes = exec::decode_count().load() - before;
    INFO(r.summary);
    REQUIRE(r.v == check::verdict::different);
    CHECK(r.float32.has_value());          // the float32 stage ran
    REQUIRE(r.counterexample.has_value());  // and the replay
    CHECK(r.counterexample->float_reference.has_value());
    CHECK(r.counterexample->float_candidate.has_value());
    CHECK(decodes == 4);
  }
}

TEST_CASE("verdict vocabulary: one spelling per class, read back by verdict_named, and its exit code") {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < check::verdict_count; ++i) {
    auto v = static_cast<check::verdict>(i);
    CHECK(names.insert(check::name(v)).second);  // no two classes share a spelling
    REQUIRE(check::verdict_named(check::name(v)).has_value());
    CHECK(*check::verdict_named(check::name(v)) == v);
  }
  CHECK(check::name(check::verdict::different) == "not-equivalent");
  CHECK(check::verdict_named("different") == check::verdict::different);  // the older spelling
  CHECK_FALSE(check::verdict_named("differnt").has_value());
  CHECK(check::exit_code(check::verdict::equivalent) == 0);
  CHECK(check::exit_code(check::verdict::different) == 1);
  for (auto v : {check::verdict::race, check::verdict::deadlock, check::verdict::uninitialized, check::verdict::out_of_bounds,
                 check::verdict::trap})
    CHECK(check::exit_code(v) == 2);
  for (auto v : {check::verdict::unknown, check::verdict::unsupported, check::verdict::not_structured})
    CHECK(check::exit_code(v) == 3);
  CHECK(check::exit_code(check::verdict::bad_input) == 4);
  CHECK(check::exit_code(check::verdict::resource_limit) == 5);
}

TEST_CASE("every run error kind maps to its own verdict class; an uninitialized read is not out-of-bounds") {
  using k = exec::error_kind;
  CHECK(check::verdict_of(k::uninitialized) == check::verdict::uninitialized);
  CHECK(check::verdict_of(k::out_of_bounds) == check::verdict::out_of_bounds);
  CHECK(check::verdict_of(k::misaligned) == check::verdict::out_of_bounds);
  CHECK(check::verdict_of(k::deadlock) == check::verdict::deadlock);
  CHECK(check::verdict_of(k::barrier) == check::verdict::deadlock);
  CHECK(check::verdict_of(k::trap) == check::verdict::trap);
  CHECK(check::verdict_of(k::unsupported) == check::verdict::unsupported);
  CHECK(check::verdict_of(k::not_structured) == check::verdict::not_structured);
  CHECK(check::verdict_of(k::limit) == check::verdict::resource_limit);
  CHECK(check::verdict_of(k::domain) == check::verdict::unknown);
}

TEST_CASE("a spec's expect is read in the vocabulary, and a misspelled one is an error listing the names") {
  std::string base = R"({"tensors": {"x": {"dtype": "f32", "shape": [4], "role": "inout"}},
    "kernel": {"ptx": "k.ptx", "params": ["x"], "block": [4]}, "expect": )";
  CHECK(check::parse_spec(base + R"("uninitialized-read"})", "s.json").expect == check::verdict::uninitialized);
  CHECK(check::parse_spec(base + R"("not-equivalent"})", "s.json").expect == check::verdict::different);
  CHECK(check::parse_spec(base + R"("different"})", "s.json").expect == check::verdict::different);
  CHECK_THROWS_WITH_AS(check::parse_spec(base + R"("same"})", "s.json"), doctest::Contains("uninitialized-read"),
                       support::diagnostic_error);
}

TEST_CASE("screen: every finding is kept, races first, and the verdict is the first") {
  check::check_result res;
  check::side_report ref, cand;
  ref.name = "reference";
  cand.name = "candidate";
  // The candidate's run stopped at an uninitialized read after its race context saw a race; the
  // reference has an inter-CTA conflict.
  cand.error = exec::run_error{};
  cand.error->kind = exec::error_kind::uninitialized;
  cand.error->message = "read of uninitialized shared memory";
  cand.failed_cta = exec::dim3{0, 0, 0};
  cand.race_text = "RAW race on shared s[1]";
  cand.race_free = false;
  ref.conflicts = {"y[0] is written by CTA (0,0,0) and written by CTA (1,0,0)"};
  REQUIRE(check::screen(res, {&ref, &cand}));
  REQUIRE(res.findings.size() == 3);
  CHECK(res.findings[0].v == check::verdict::race);
  CHECK(res.findings[0].side == "candidate");
  CHECK(res.findings[1].v == check::verdict::uninitialized);
  CHECK(res.findings[2].v == check::verdict::race);
  CHECK(res.findings[2].side == "reference");
  CHECK(res.v == check::verdict::race);
  CHECK(res.summary == res.findings[0].message);

  check::check_result clean;
  check::side_report a, b;
  CHECK_FALSE(check::screen(clean, {&a, &b}));
  CHECK(clean.findings.empty());
}

TEST_CASE("inout elements no CTA writes cost nothing; one side's write meets the other's input value") {
  // 64x64 SGEMM, C inout: checking one CTA per side compares its 16x16 tile and makes no term for
  // the 3840 elements of C neither side writes.
  check::pair_spec spec = corpus("sgemm/naive_vs_smem.pair.json");
  check::check_options o;
  o.float32_report = false;
  spec.reference.ctas = {exec::dim3{1, 1, 0}};
  spec.candidate.ctas = {exec::dim3{1, 1, 0}};
  check::check_result same = check::check_pair(spec, check::resolve(spec), o);
  INFO(same.summary);
  REQUIRE(same.v == check::verdict::equivalent);
  REQUIRE(same.compared);
  CHECK(same.compared->elements == 64 * 64);
  CHECK(same.compared->equal == 16 * 16);
  CHECK(same.compared->unwritten == 64 * 64 - 16 * 16);
  // Different tiles: an element the candidate writes is compared with the reference's unwritten
  // element, which holds its input value C[i][j], not alpha (A B)[i][j] + beta C[i][j].
  spec.candidate.ctas = {exec::dim3{2, 1, 0}};
  check::check_result other = check::check_pair(spec, check::resolve(spec), o);
  INFO(other.summary);
  CHECK(other.v == check::verdict::different);
  REQUIRE(other.compared);
  CHECK(other.compared->written_by_one == 0);  // filled with C's input terms, not "written by one"
  CHECK(other.compared->different >= 1);
  CHECK(other.counterexample.has_value());
}

TEST_CASE("one grid runner: a side's CTAs after its first failure are not run, results in grid order for any -j") {
  check::pair_spec spec = corpus("sgemm/hgemm_naive_vs_mma.pair.json");  // reference: 4x4 CTAs
  check::resolved_pair pair = check::resolve(spec);
  check::prepared_pair p = check::prepare(spec, pair);
  REQUIRE(p.reference.has_value());
  const check::prepared_kernel* sides[] = {&*p.reference, &p.candidate};
  std::vector<std::vector<exec::dim3>> ctas = {p.reference->ctas, p.candidate.ctas};
  REQUIRE(ctas[0].size() == 16);
  REQUIRE(ctas[1].size() == 1);
  CHECK(check::cta_workers(ctas, 8) == 8);
  CHECK(check::cta_workers(ctas, 0) == 1);
  // CTA 5 of the reference "fails": on one thread (jobs in order: the one-CTA side first, then the
  // reference's CTAs in grid order) nothing after it runs; on two, everything before it still does.
  for (unsigned threads : {1u, 2u}) {
    std::vector<std::pair<std::size_t, std::uint32_t>> seen;
    std::mutex m;
    auto ran = check::run_ctas(sides, ctas, threads, [&](unsigned, std::size_t si, std::uint32_t ci, const exec::launch& l) {
      CHECK(l.cta == ctas[si][ci]);
      std::lock_guard lock(m);
      seen.emplace_back(si, ci);
      return si == 0 && ci == 5;
    });
    REQUIRE(ran.size() == 2);
    CHECK(ran[1][0] == 1);
    for (std::uint32_t ci = 0; ci <= 5; ++ci) CHECK(ran[0][ci] == 1);
    if (threads == 1) {
      for (std::uint32_t ci = 6; ci < 16; ++ci) CHECK(ran[0][ci] == 0);
      REQUIRE(seen.size() == 7);
      CHECK(seen.front() == std::pair<std::size_t, std::uint32_t>{1, 0});  // the side with fewer CTAs first
    }
  }
  // The float32 runs of both sides through run_grids: the same outputs on one thread and on two.
  auto make = [] { return exec::float32_domain([](const exec::input_ref& in) { return static_cast<double>(in.element % 5) * 0.25; }); };
  auto one = check::run_grids<exec::float32_domain>(sides, make, 1);
  auto two = check::run_grids<exec::float32_domain>(sides, make, 2);
  REQUIRE(one.size() == 2);
  for (std::size_t si = 0; si < 2; ++si) {
    CHECK_FALSE(one[si].error.has_value());
    CHECK(one[si].ctas == ctas[si].size());
    CHECK(one[si].values == two[si].values);
  }
}

TEST_CASE("the race driver: each kernel of a spec screened in check's vocabulary, a specification reference skipped") {
  check::pair_spec racy = corpus("reduction/v1_vs_v5.pair.json");  // v5 races without --warp-synchronous
  race::driver_options one_witness;
  one_witness.witnesses = 1;
  auto results = race::check_races(racy, check::resolve(racy), one_witness);
  REQUIRE(results.size() == 2);
  CHECK(results[0].side == "reference");
  CHECK_FALSE(race::finding(results[0]).has_value());
  CHECK(race::exit_code(results[0]) == 0);
  CHECK(race::finding(results[1]) == check::verdict::race);
  CHECK(race::verdict_name(results[1]) == "race");
  CHECK(results[1].witnesses.size() == 1);
  race::driver_options lockstep;
  lockstep.warp_synchronous = true;
  for (auto& k : race::check_races(racy, check::resolve(racy), lockstep)) CHECK_FALSE(race::finding(k).has_value());

  check::pair_spec against = corpus("softmax/spec_vs_online.pair.json");
  CHECK_FALSE(check::has_kernel(against, false));
  auto one = race::check_races(against, check::resolve(against));
  REQUIRE(one.size() == 1);
  CHECK(one[0].side == "candidate");
}
