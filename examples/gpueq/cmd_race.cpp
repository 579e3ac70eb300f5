// `gpueq race`: prove a kernel free of data races and deadlocks, or report them.
//   gpueq race kernel.json          the kernel of a single-kernel spec
//   gpueq race pair.json            both kernels of a pair
// Every CTA the spec names runs symbolically with the race context observing (happens-before at
// barrier-instance granularity, named barriers with WEFT's generations and recycling check).
// Exit: 0 race-free and well-synchronized, 2 a race, deadlock, barrier error or undefined
// behaviour, 3 not a structured CTA / unsupported, 4 bad input.
#include "commands.hpp"

#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_json.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace {

using namespace gpueq;

struct options {
  std::string spec;
  bool warp_synchronous = false;
  bool witness = false;
};

int run(const options& o) {
  check::pair_spec spec = check::load_spec(o.spec);
  check::resolved_pair pair = check::resolve(spec);
  check::check_options co;
  co.race.warp_synchronous = o.warp_synchronous;
  int worst = cli::exit_ok;
  for (bool cand : {false, true}) {
    if (cand && spec.single) break;
    ptx::module m = cand ? pair.candidate : pair.reference;
    ptx::lift(m);
    term::store s;
    check::kernel_run out;
    const check::kernel_spec& k = cand ? spec.candidate : spec.reference;
    check::side_report r = check::run_side(s, m, cand ? pair.candidate_entry : pair.reference_entry, spec, k,
                                           spec.single ? "kernel" : cand ? "candidate" : "reference", out, co);
    std::cout << k.ptx << " (" << r.name << "): ";
    if (r.error) {
      std::cout << name(r.error->kind) << "\n  " << r.error->message << "\n";
      bool unknown = r.error->kind == exec::error_kind::not_structured || r.error->kind == exec::error_kind::unsupported ||
                     r.error->kind == exec::error_kind::domain;
      worst = std::max(worst, unknown ? int(cli::exit_unknown) : int(cli::exit_race));
    } else if (!r.race_text.empty()) {
      std::cout << (r.race_free ? "not well-synchronized" : "racy") << "\n" << r.race_text;
      if (o.witness)
        for (std::size_t g = 0; g < r.races.size() && g < 3; ++g) {
          const auto& ex = r.races[g].example;
          check::race_witness w = check::witness(spec, cand ? pair.candidate : pair.reference,
                                                 cand ? pair.candidate_entry : pair.reference_entry, k, *r.race_cta, ex);
          std::cout << "  witness for threads " << ex.first.thread << " and " << ex.second.thread << ": ";
          if (w.differs)
            std::cout << "under " << w.schedule_a << " " << w.where << " = " << w.a << "; under " << w.schedule_b << " "
                      << w.where << " = " << w.b << " (float32, seeded random inputs)\n";
          else
            std::cout << w.note << "\n";
        }
      worst = std::max(worst, int(cli::exit_race));
    } else if (!r.conflicts.empty()) {
      std::cout << "inter-CTA race: " << r.conflicts.front() << "\n";
      worst = std::max(worst, int(cli::exit_race));
    } else {
      std::cout << "race-free and well-synchronized (" << r.ctas << " CTA(s), " << r.steps << " thread-instructions)\n";
    }
  }
  return worst;
}

cli::registrar reg("race", [](CLI::App& app) -> cli::runner {
  auto o = std::make_shared<options>();
  auto* c = app.add_subcommand("race", "Prove kernels free of data races and deadlocks, or report them");
  c->add_option("spec", o->spec, "A single-kernel spec (\"kernel\") or a pair spec (both kernels)")->required();
  c->add_flag("--witness", o->witness,
              "For the first race groups, replay the CTA in float32 under two schedules that order the racing accesses "
              "differently and show an output that changes");
  c->add_flag("--warp-synchronous", o->warp_synchronous, "Legacy pre-Volta mode: threads of one warp run in lockstep and never race");
  c->footer("Exit: 0 race-free, 2 race/deadlock/barrier error/undefined behaviour, 3 not a structured CTA, 4 bad input.");
  return [c, o]() -> int {
    if (!c->parsed()) return cli::exit_ok;
    try {
      return run(*o);
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
      return cli::exit_bad_input;
    }
  };
});

}  // namespace
