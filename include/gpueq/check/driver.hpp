// Checking a pair end to end: parse both kernels, lift nvcc's math idioms, run every CTA of both
// symbolically in one term store with the race context observing, and then decide one obligation
// per output element. What `gpueq check` prints and what the corpus test asserts come from here,
// so the tool and the tests take the same path.
//
// Order of verdicts: a run error (deadlock, out-of-bounds, uninitialized read, not a structured
// CTA, unsupported instruction) or a race/barrier problem in either kernel is reported *instead*
// of an equivalence verdict: outputs of a racy kernel depend on the schedule, so comparing the
// one schedule we ran would prove nothing (VOLTA §4).
//
// The stages, each in its file: prepare (check/prepared.hpp: each side lifted and decoded once),
// run (check/sides.hpp: every CTA of each side, race context and inter-CTA footprints), screen
// (check::screen below: races, run errors, conflicts become findings, the first the verdict),
// compare (check/compare.hpp: one obligation per output element, against a reference kernel's
// outputs or a specification's, check/specification.hpp), explain (check/explain.hpp:
// counterexample replay, float32 side report, race witnesses). check_pair is the entry point; a
// pair whose reference is a registered specification is checked against that specification.
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/explain.hpp>
#include <gpueq/check/paths.hpp>
#include <gpueq/check/prepared.hpp>
#include <gpueq/check/sides.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/check/specification.hpp>
#include <gpueq/check/verdict.hpp>
#include <gpueq/support/entry.hpp>
#include <gpueq/term/print.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpueq::check {

// One thing the screen stage found in a side's runs: a race, a run error, a barrier problem or an
// inter-CTA conflict, with the verdict class it belongs to.
struct finding {
  verdict v;
  std::string side;     // "reference" / "candidate"
  std::string message;  // for people, as the summary gives the first
};

struct check_result {
  verdict v = verdict::unknown;
  std::string summary;  // one paragraph for people
  // Every finding of the screen stage, the first (the verdict) first; empty when the outputs were
  // compared.
  std::vector<finding> findings;
  // What the screen stage tolerated and says beside the verdict (benign races under
  // check_options::allow_benign).
  std::vector<std::string> notes;
  // The tensors with given contents (pair_spec::contents), as (name, description): the verdict
  // holds for those values only, whichever it is.
  std::vector<std::pair<std::string, std::string>> given;
  side_report reference, candidate;
  std::optional<comparison> compared;
  std::vector<std::string> examples;  // differing elements: both expressions, truncated
  std::optional<counterexample_report> counterexample;
  // Side report: both kernels run in float32 on the same seeded random inputs (what users see on
  // a GPU next to the proof). Empty when either float32 run failed.
  using float32_report = check::float32_report;
  std::optional<float32_report> float32;
  double run_seconds = 0, decide_seconds = 0;
  std::size_t terms = 0;
};

// The spec's given contents as (tensor, description), as check_result::given lists them: what a
// verdict about the spec holds for.
inline std::vector<std::pair<std::string, std::string>> given_of(const pair_spec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, c] : spec.contents) out.emplace_back(name, describe(c, spec.tensors.at(name).elements()));
  return out;
}

// A term printed for a report: the printer stops after about n characters (a GEMM output is a
// DAG whose full text would be enormous).
inline std::string short_text(const term::store& s, term::term_id t, std::size_t n = 400) {
  term::print_options o;
  o.max_chars = n;
  return term::to_string(s, t, o);
}

// The screen stage: every run error, race report and inter-CTA conflict of the sides becomes a
// finding, in the precedence order check/verdict.hpp states (races found before a run stopped,
// run errors, barrier problems, inter-CTA conflicts; the reference side before the candidate
// within each), and the first is the verdict. True when there was one.
inline bool screen(check_result& res, std::initializer_list<const side_report*> sides) {
  auto add = [&](verdict v, const side_report& side, std::string message) {
    res.findings.push_back({v, side.name, std::move(message)});
  };
  for (const side_report* side : sides)
    if (side->benign_tolerated)
      res.notes.push_back(side->name + " kernel has benign races only (same-value writes, tolerated):\n" + side->race_text);
  for (const side_report* side : sides)
    if (!side->race_text.empty() && !side->race_free && !side->benign_tolerated)
      add(verdict::race, *side, side->name + " kernel is racy:\n" + side->race_text);
  for (const side_report* side : sides)
    if (side->error)
      add(verdict_of(side->error->kind), *side,
          side->name + " kernel, CTA " + cta_name(*side->failed_cta) + ": " + side->error->message);
  for (const side_report* side : sides)
    if (!side->race_text.empty() && side->race_free)
      add(verdict::deadlock, *side, side->name + " kernel is not well-synchronized:\n" + side->race_text);
  for (const side_report* side : sides)
    for (auto& c : side->conflicts)
      add(verdict::race, *side, side->name + " kernel: two CTAs access one element and one of them writes it (an inter-CTA race): " + c);
  if (res.findings.empty()) return false;
  res.v = res.findings.front().v;
  res.summary = res.findings.front().message;
  return true;
}

namespace detail {

// "16 CTA(s) of block (64,1,1)", or for a side with a cluster shape (each run a cluster)
// "4 cluster(s) of 4 CTAs of block (64,1,1)".
inline std::string runs_text(std::size_t runs, const kernel_spec& k) {
  if (!k.cluster[0]) return std::to_string(runs) + " CTA(s) of block " + cta_name(k.block);
  return std::to_string(runs) + " cluster(s) of " + std::to_string(k.cluster[0] * k.cluster[1] * k.cluster[2]) +
         " CTAs of block " + cta_name(k.block);
}

// The comparison's options under a check's: its threads and its progress ("decide").
inline compare_options compare_options_of(const check_options& options) {
  compare_options co = options.compare;
  co.threads = std::max(co.threads, options.threads);
  if (options.progress && !co.progress) {
    co.progress = [progress = options.progress](std::uint64_t done, std::uint64_t total) { progress("decide", done, total); };
    co.progress_every = 256;
  }
  return co;
}

// An element of an inout tensor that a side did not write holds its input value (or its given
// contents). The run stage leaves such elements empty; before the comparison, an element one side
// wrote and the other did not gets that initial value on the other side. Elements neither side wrote are equal by
// construction and cost nothing: checking CTA 0 of a 4096x4096 GEMM makes no term for the
// 16.7 M elements of C that it does not write.
inline void fill_inout(term::store& s, const exec::launch& l, outputs& a, outputs& b) {
  exec::symbolic_domain d(s);
  for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
    const auto& t = l.tensors[ti];
    if (!(t.input && t.output)) continue;
    auto ia = a.find(t.name), ib = b.find(t.name);
    if (ia == a.end() || ib == b.end()) continue;
    auto& va = ia->second;
    auto& vb = ib->second;
    if (va.size() != vb.size()) continue;  // compare reports it
    for (std::uint64_t i = next_either(va, vb, 0); i < va.size(); i = next_either(va, vb, i + 1))
      if (std::as_const(va)[i].has_value() != std::as_const(vb)[i].has_value())
        (std::as_const(va)[i] ? vb[i] : va[i]) = d.finish(exec::initial_value(d, t, ti, i));
  }
  d.end_run();
}

// How a comparison's result is worded: the reference side's name, what `what` says was checked,
// and the phrases for a proof and for elements the candidate alone (or the reference alone)
// writes.
struct wording {
  std::string reference = "reference";
  std::string what;
  std::string written_by_one = "are written by one kernel only";
  std::string proved = "written elements of";
  std::string equal = "are equal over the reals";
};

// The verdict, summary and differing examples of a finished comparison.
inline void conclude(check_result& res, const term::store& s, const comparison& c, const outputs& ref,
                     const outputs& cand, std::uint64_t total, const wording& w, bool stop_at_first_difference) {
  if (c.different) {
    res.v = verdict::different;
    res.summary = c.elements < total && stop_at_first_difference
                      ? "a difference among " + w.what + ", found after deciding " + std::to_string(c.elements)
                      : std::to_string(c.different) + " of " + w.what + " differ";
  } else if (c.written_by_one) {
    res.v = verdict::different;
    res.summary = std::to_string(c.written_by_one) + " of " + w.what + " " + w.written_by_one;
  } else if (c.unknown) {
    res.v = verdict::unknown;
    res.summary = std::to_string(c.unknown) + " of " + w.what + " could not be decided";
  } else {
    res.v = verdict::equivalent;
    res.summary = "all " + std::to_string(c.equal) + " " + w.proved + " " + w.what + " " + w.equal +
                  (c.unwritten ? " (" + std::to_string(c.unwritten) + " elements written by neither)" : std::string());
    // --fast: say how much of it rests on fingerprints, which are evidence, not a proof.
    if (c.by_fingerprint)
      res.summary += "; " + std::to_string(c.by_fingerprint) + " of them by equal fingerprints only (equal with "
                     "high probability, not proved: check without --fast for a proof)";
  }
  for (auto& p : c.problems) {
    if (res.examples.size() >= 3) break;
    std::string e = p.tensor + "[" + std::to_string(p.index) + "]";
    auto rv = ref.at(p.tensor)[p.index], cv = cand.at(p.tensor)[p.index];
    if (p.status == element_status::written_by_one)
      e += rv ? ": only the " + w.reference + " writes it" : ": only the candidate writes it";
    else {
      e += ":\n    " + w.reference + " = " + (rv ? short_text(s, *rv) : std::string("(unwritten)"));
      e += "\n    candidate = " + (cv ? short_text(s, *cv) : std::string("(unwritten)"));
      if (p.status == element_status::unknown) e += "\n    unknown: " + p.reason;
    }
    res.examples.push_back(std::move(e));
  }
}

// The specification's outputs must be the pair spec's output tensors, element for element.
inline void check_spec_outputs(const pair_spec& spec, const specification& sp, const outputs& want) {
  auto fail = [&](const std::string& why) {
    throw support::diagnostic_error({spec.file, {}, "specification '" + sp.name + "': " + why});
  };
  for (auto& [name, vals] : want) {
    auto it = spec.tensors.find(name);
    if (it == spec.tensors.end() || (it->second.use != role::output && it->second.use != role::inout)) fail("defines '" + name + "', which is not an output tensor of the spec");
    if (it->second.elements() != vals.size())
      fail("'" + name + "' has " + std::to_string(vals.size()) + " elements, the spec's tensor " + std::to_string(it->second.elements()));
  }
  for (auto& [name, t] : spec.tensors)
    if ((t.use == role::output || t.use == role::inout) && !want.contains(name)) fail("does not define the output tensor '" + name + "'");
}

// The output elements of `out`, counted.
inline std::uint64_t element_count(const outputs& out) {
  std::uint64_t total = 0;
  for (auto& [name, vals] : out) total += vals.size();
  return total;
}

// The compare and explain stages, whatever the reference is: one obligation per output element of
// `want` (the reference's outputs) against `got` (the candidate's), the verdict and its summary,
// and for the first difference with a witness the counterexample `explain` builds from it.
template <class Explain>
void compare_and_explain(check_result& res, term::store& s, const outputs& want, const outputs& got,
                         const wording& w, const check_options& options, Explain&& explain) {
  auto t1 = std::chrono::steady_clock::now();
  comparison c = compare(s, want, got, compare_options_of(options));
  res.decide_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  conclude(res, s, c, want, got, element_count(want), w, options.compare.stop_at_first_difference);
  for (auto& p : c.problems)
    if (p.status == element_status::different && p.witness) {
      res.counterexample = explain(p);
      break;
    }
  res.compared = std::move(c);
}

}  // namespace detail

// Checks the candidate kernel of `spec` (resolved in `pair`) against the specification `sp`.
// The verdict is check_pair's: a run error, race or inter-CTA conflict of the kernel instead of a
// verdict; not-equivalent with a counterexample whose reference value is the specification
// evaluated in double and whose candidate value is the kernel run in float32.
GPUEQ_ENTRY check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const specification& sp,
                                            const check_options& options = {});

// The specification the pair spec names (spec.reference_spec), from the registry.
GPUEQ_ENTRY check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const check_options& options = {});

// Checks two kernels (the pair's reference is a kernel): each side prepared once (parsed module
// copied and lifted, both programs decoded), then run, screen, compare, explain.
GPUEQ_ENTRY check_result check_kernels(const pair_spec& spec, const resolved_pair& pair, const check_options& options = {});

// Checks a resolved pair (see check::resolve): the candidate against the reference kernel, or
// against the registered specification the pair names as its reference (spec.reference_spec).
GPUEQ_ENTRY check_result check_pair(const pair_spec& spec, const resolved_pair& pair, const check_options& options = {});

// One kernel run over its whole grid in one value domain, without a check (`gpueq run`): the
// output tensors' elements, as numbers (float32, rational: converted to double) or as the text
// of their terms (symbolic, each cut at 2000 characters); nullopt for an unwritten element.
// Inputs come from `source`; in the symbolic domain they are symbols and `source` is not read.
enum class run_domain { float32, rational, symbolic };
struct grid_outputs {
  std::map<std::string, std::vector<std::optional<double>>> values;
  std::map<std::string, std::vector<std::optional<std::string>>> texts;
  std::optional<exec::run_error> error;
  std::uint64_t steps = 0;
  std::uint32_t ctas = 0;
};
GPUEQ_ENTRY grid_outputs run_outputs(const prepared_kernel& k, run_domain d,
                                     const std::function<double(const exec::input_ref&)>& source,
                                     const exec::engine_options& options = {});

}  // namespace gpueq::check

// The bodies of the entry points above: compiled here (header-only) or in gpueq::compiled
// (support/entry.hpp).
#if GPUEQ_ENTRY_BODIES
#include <gpueq/check/driver_entries.hpp>
#endif
