// `gpueq check`: prove two kernels equivalent, or show where they differ.
//   gpueq check pair.json                 the verdict, what was checked, the first differences
//   gpueq check a.pair.json b.pair.json   several pairs, one verdict line each
//   gpueq check --expect corpus/*.pair.json
//                                         compare each verdict with the spec's "expect" and end with
//                                         "N passed, N failed" (the corpus test runs this)
// Exit: 0 equivalent, 1 not equivalent, 2 race/deadlock/out-of-bounds, 3 unknown, 4 bad input; with
// --expect: 0 when every pair meets its expectation, 1 otherwise.
#include "commands.hpp"
#include "report.hpp"
#include "../specs/corpus.hpp"  // registers the corpus specifications ("reference": {"spec": …})

#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_check.hpp>
#include <gpueq/check/spec_json.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace gpueq;

struct options {
  std::vector<std::string> files;
  std::string counterexample_file;
  std::string grid;  // "all", or CTAs "x,y,z;x,y,z"
  std::uint64_t max_memory = 0;
  std::uint64_t max_expansion = canon::normal_form_options{}.expansion_bytes >> 20;  // MiB
  std::uint32_t max_paths = check::check_options{}.max_paths;
  unsigned jobs = 0;
  bool json = false, sarif = false;
  bool expect = false, all = false, no_race = false, no_float32 = false, warp_synchronous = false, quiet = false;
  bool fast = false;
  bool allow_benign = false;
  bool strict_barriers = false;
};

// --grid: "all" (every CTA of each kernel's grid) or a list of CTAs "x[,y[,z]];…" (or with ':', which needs
// no quoting) for both kernels.
void apply_grid(const std::string& grid, check::pair_spec& spec) {
  if (grid.empty()) return;
  std::vector<check::dim3> ctas;
  if (grid != "all") {
    std::size_t start = 0;
    while (start <= grid.size()) {
      std::size_t end = grid.find_first_of(";:", start);
      std::string item = grid.substr(start, end == std::string::npos ? std::string::npos : end - start);
      check::dim3 c{0, 0, 0};
      std::size_t d = 0, pos = 0;
      while (pos < item.size()) {
        if (d == 3) throw std::invalid_argument("--grid: a CTA has at most three coordinates: '" + item + "'");
        std::size_t used = 0;
        unsigned long v = 0;
        try {
          v = std::stoul(item.substr(pos), &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || v > 0xffffffffu)
          throw std::invalid_argument("--grid: expected 'all' or CTAs like '0,0;1,0', got '" + grid + "'");
        c[d++] = static_cast<std::uint32_t>(v);
        pos += used;
        if (pos < item.size() && item[pos] == ',') ++pos;
        else if (pos < item.size())
          throw std::invalid_argument("--grid: expected 'all' or CTAs like '0,0;1,0', got '" + grid + "'");
      }
      if (d == 0) throw std::invalid_argument("--grid: an empty CTA in '" + grid + "'");
      ctas.push_back(c);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  spec.reference.ctas = ctas;
  spec.candidate.ctas = ctas;
}

// Checks one pair; prints the report (with --sarif, adds its results to `sarif` instead). Returns
// the verdict, or nullopt when the pair could not be checked, with `failure` set to exit_bad_input
// or exit_resource (an allocation failed).
std::optional<check::verdict> check_one(const std::string& file, const options& o, check::pair_spec& spec, int& failure,
                                        nlohmann::ordered_json& sarif) {
  try {
    spec = check::load_spec(file);
    if (spec.single)
      throw support::diagnostic_error({file, {}, "a single-kernel spec (\"kernel\") has no pair to check: use gpueq run or gpueq race"});
    apply_grid(o.grid, spec);
    check::resolved_pair pair = check::resolve(spec);
    cli::print_warnings(pair.reference);
    cli::print_warnings(pair.candidate);
    check::check_options co;
    co.check_races = !o.no_race;
    co.float32_report = !o.no_float32;
    co.race.warp_synchronous = o.warp_synchronous;
    co.allow_benign = o.allow_benign;
    co.race.strict_barriers = o.strict_barriers;
    co.compare.stop_at_first_difference = !o.all;
    co.compare.decide.fast = o.fast;
    co.compare.decide.normal_form.expansion_bytes = o.max_expansion << 20;
    co.max_paths = o.max_paths;
    co.engine.max_resident_mib = o.max_memory;
    co.threads = o.jobs ? o.jobs : cli::default_jobs();
    cli::progress progress(file, !o.quiet && !o.json && !o.sarif);
    co.progress = std::ref(progress);
    // A reference that names a registered specification: the candidate is checked against it.
    check::check_result r = check::check_pair(spec, pair, co);
    // The counterexample's input goes to its file whatever the report's form.
    cli::report::check_text_options text{o.quiet, o.all, {}};
    if (r.counterexample && !o.counterexample_file.empty()) {
      std::ofstream out(o.counterexample_file);
      out << cli::report::counterexample_json(file, *r.counterexample).dump(1) << "\n";
      if (!out) throw std::runtime_error("cannot write " + o.counterexample_file);
      text.counterexample_written = o.counterexample_file;
    }
    if (o.sarif) {
      cli::report::add_check_results(file, spec, r, sarif);
      return r.v;
    }
    if (o.json) {
      std::cout << cli::report::check_json(file, r).dump(1) << "\n";
      return r.v;
    }
    cli::report::check_text(std::cout, file, r, text);
    if (!o.quiet) cli::report::check_statistics(std::cerr, file, r);
    return r.v;
  } catch (const std::exception& e) {
    failure = cli::report_failure(e, "check", file);
  }
  return std::nullopt;
}

// Several files: the worst status wins (the largest exit code: 0 equivalent < 1 not equivalent <
// 2 a kernel defect < 3 undecided < 4 bad input < 5 resource limit), so a failing pair early in
// the list is never hidden by a later one, and a summary line counts each verdict.
int run(const options& o) {
  int worst = cli::exit_ok;
  std::size_t passed = 0, failed = 0;
  std::map<std::string, std::size_t> counts;
  if (o.json && o.sarif) throw std::runtime_error("--json and --sarif: choose one, not both");
  if (o.strict_barriers && o.no_race)
    throw std::runtime_error("--strict-barriers is checked by the race analysis, which --no-race skips: give one, not both");
  nlohmann::ordered_json sarif = nlohmann::ordered_json::array();
  for (const auto& f : o.files) {
    check::pair_spec spec;
    int failure = cli::exit_bad_input;
    auto v = check_one(f, o, spec, failure, sarif);
    check::verdict got = v ? *v : failure == cli::exit_resource ? check::verdict::resource_limit : check::verdict::bad_input;
    ++counts[std::string(check::name(got))];
    worst = std::max(worst, check::exit_code(got));
    if (!v) {
      ++failed;
      continue;
    }
    if (o.expect) {
      if (!spec.expect) {
        std::cout << "  FAIL: the spec has no \"expect\"\n";
        ++failed;
      } else if (check::meets(*v, *spec.expect)) {
        ++passed;
      } else {
        std::cout << "  FAIL: expected " << check::name(*spec.expect) << "\n";
        ++failed;
      }
    }
  }
  if (o.sarif)
    std::cout << cli::report::sarif_log(std::move(sarif), worst, std::filesystem::current_path().generic_string()).dump(2)
              << "\n";
  if (o.files.size() > 1 && !o.json && !o.sarif) {
    std::string line;
    for (auto& [name, n] : counts) line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + name;
    std::cout << o.files.size() << " pairs: " << line << "\n";
  }
  if (o.expect) {
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed ? cli::exit_different : cli::exit_ok;
  }
  return worst;
}

cli::registrar reg("check", [](CLI::App& app) -> cli::runner {
  auto o = std::make_shared<options>();
  auto* c = app.add_subcommand("check", "Prove two kernels equivalent over the reals, or show where they differ");
  c->add_option("pairs", o->files, "Pair specs (JSON; see examples/kernels/README.md)")->required();
  c->add_flag("--expect", o->expect, "Compare each verdict with the spec's \"expect\"; end with 'N passed, N failed'");
  c->add_flag("--all", o->all, "Decide every output element (default: stop at the first difference)");
  c->add_flag("--allow-benign", o->allow_benign,
              "Tolerate benign races (threads writing the same value to one place, as in `if (...) flag = 1;`): "
              "listed as a note, not a race verdict");
  c->add_flag("--strict-barriers", o->strict_barriers,
              "CUDA's rule for __syncthreads instead of PTX's barrier semantics: a thread that exits before a barrier "
              "without a thread count that other threads of its block reach, or threads reaching one at different "
              "barrier instructions (a divergent branch), is a barrier-divergence error (part of the race analysis)");
  c->add_flag("--no-race", o->no_race, "Skip the race analysis (the verdict then holds for the schedule run only)");
  c->add_flag("--no-float32", o->no_float32,
              "Skip the float32 side report (both kernels run once more in float32 on random inputs to show their "
              "numerical difference; on the largest pairs that is a fifth of the time)");
  c->add_flag("--fast", o->fast,
              "Accept output elements whose fingerprints (random evaluations modulo a 62-bit prime) agree as equal, "
              "without normal forms: equal with high probability, not proved (the summary counts them). Differences "
              "are still shown with a counterexample; the runs and the race analysis are the same");
  c->add_flag("--warp-synchronous", o->warp_synchronous,
              "Legacy pre-Volta mode: threads of one warp never race with each other");
  c->add_option("--counterexample", o->counterexample_file,
                 "Write the input on which the kernels differ (every input tensor, as JSON) to this file");
  c->add_flag("--json", o->json, "Print each pair's report as JSON");
  c->add_flag("--sarif", o->sarif,
              "Print one SARIF 2.1.0 log for all pairs instead of text: each kernel's races, barrier problems, run "
              "errors and inter-CTA conflicts at their lines, and a not-equivalent or unknown result per pair");
  cli::add_max_memory_option(c, o->max_memory);
  c->add_option("--max-expansion", o->max_expansion,
                "MiB one expansion of a normal form may take (a product of sums, a power of a sum); a larger one leaves "
                "that element unknown (default 1024)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  c->add_option("--max-paths", o->max_paths,
                "Paths of the case split over comparisons of symbolic values (a selection or branch on a.m > b.m that "
                "is not max/min): each path runs both kernels with one outcome per such comparison, and max/min are "
                "resolved under its assumptions; more paths than this give unknown (default 4096; 0: no case split, "
                "such a comparison stops the run)");
  c->add_option("--grid", o->grid,
                 "Which CTAs to check, overriding the spec's \"ctas\": 'all' (every CTA of each kernel's grid, so two "
                 "tilings can be compared on a small problem) or a list for both kernels, e.g. '0,0;1,0' (or 0,0:1,0)");
  c->add_option("-j,--jobs", o->jobs, "Threads for the CTAs and the obligations (default: every core)");
  c->add_flag("-q,--quiet", o->quiet, "Print only the verdict line (and no progress on stderr)");
  c->footer(
      "Exit status: 0 equivalent, 1 not-equivalent, 2 a kernel defect (race, deadlock, uninitialized-read, "
      "out-of-bounds, trap), 3 undecided (unknown, unsupported, not-structured), 4 bad input, 5 resource limit; with "
      "several pairs the largest.\n"
      "With --expect: 0 when every pair meets its expectation, 1 otherwise.");
  return [c, o]() -> int { return c->parsed() ? run(*o) : cli::exit_ok; };
});

}  // namespace
