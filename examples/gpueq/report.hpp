// Report rendering for every subcommand that reports findings: `gpueq race` and `gpueq check` as
// text, as JSON (--json) and as SARIF 2.1.0 (--sarif), so that editors and code review tools show
// races, deadlocks and barrier errors at their source lines. A kernel's findings come as
// race::kernel_result (race/driver.hpp: the run stage's side report with its entry and the source
// line of every instruction, and the race witnesses); a pair's as check::check_result.
//
// SARIF mapping: one result per race group, barrier diagnostic, run error and inter-CTA conflict.
// The primary location is the CUDA file:line when the PTX carries `.loc` line info (the PTX line
// otherwise); the PTX line of the same access and both lines of a race's second access follow in
// relatedLocations. Rule ids: gpueq.race.raw/.war/.waw, gpueq.deadlock, gpueq.barrier,
// gpueq.out-of-bounds (and misaligned), gpueq.uninitialized, gpueq.inter-cta-race,
// gpueq.not-structured, gpueq.unsupported, gpueq.trap, gpueq.step-limit; for `gpueq check` also
// gpueq.not-equivalent and gpueq.unknown (comparison_result).
#pragma once

#include "commands.hpp"

#include <gpueq/check/driver.hpp>
#include <gpueq/race/driver.hpp>
#include <gpueq/race/ptx_source.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gpueq::cli::report {

// Keys in the order written: verdict first, details after.
using json = nlohmann::ordered_json;

// One kernel's result (race/driver.hpp).
using race_side = race::kernel_result;

inline std::string kebab(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c == ' ' || c == '_') c = '-';
  return out;
}

inline std::string error_verdict(exec::error_kind k) {
  switch (k) {
    case exec::error_kind::barrier: return "barrier-error";
    case exec::error_kind::limit: return "step-limit";
    case exec::error_kind::not_structured: return "not-structured";
    default: return kebab(exec::name(k));
  }
}

// A path named by `.file` in the PTX, made findable: relative names are tried beside the PTX file
// (nvcc writes the name it was given, often relative to where it ran).
inline std::string cuda_path(const std::string& file, const std::string& ptx_path) {
  if (file.empty()) return file;
  std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  std::filesystem::path beside = std::filesystem::path(ptx_path).parent_path() / p;
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return beside.lexically_normal().generic_string();
  return file;
}

inline json location(const race_side& s, std::uint32_t instruction) {
  json j;
  j["ptx_file"] = s.kernel->path;
  race::source_line l = instruction < s.r.lines.size() ? s.r.lines[instruction] : race::source_line{};
  j["ptx_line"] = l.ptx_line;
  if (l.cuda_line != 0) {
    j["cuda_file"] = cuda_path(l.cuda_file, s.kernel->path);
    j["cuda_line"] = l.cuda_line;
  }
  return j;
}

inline json thread(const race_side& s, std::uint32_t t) {
  const auto& b = s.kernel->block;
  json j;
  j["linear"] = t;
  j["x"] = t % b[0];
  j["y"] = (t / b[0]) % b[1];
  j["z"] = t / (b[0] * b[1]);
  std::uint32_t ws = s.r.race_info.warp_size ? s.r.race_info.warp_size : 32;
  j["warp"] = t / ws;
  j["lane"] = t % ws;
  return j;
}

inline json barrier_key(exec::barrier_key k) {
  return {{"kind", exec::model(k.kind).spelling}, {"id", k.id}};
}

inline race::source_lookup lookup(const race_side& s);

inline json access(const race_side& s, const race::race_access& a, std::uint32_t region) {
  constexpr const char* kinds[] = {"read", "write", "atomic"};
  json j;
  j["access"] = kinds[static_cast<std::size_t>(a.kind)];
  j["thread"] = thread(s, a.thread);
  j["async_proxy"] = a.async_proxy;  // the access is a TMA/bulk copy's, issued by the thread
  j["instruction"] = a.instruction;
  j["location"] = location(s, a.instruction);
  if (a.async_proxy) {
    // The copy and what completes it, instead of the agent's segment (which names nothing).
    const auto& regions = s.r.race_info.regions;
    j["copy"] = race::detail::copy_name(
        a, region < regions.size() ? regions[region].space : exec::memory_space::shared, lookup(s));
    if (a.completion.generation == 0) {
      j["completed_on"] = nullptr;
    } else {
      j["completed_on"] = barrier_key(a.completion.key);
      j["completed_on"]["name"] = race::detail::resource(a.completion.key, s.r.race_info);
      j["completed_on"]["generation"] = a.completion.generation;
    }
    return j;
  }
  j["segment"] = a.segment;
  if (a.after.generation == 0) {
    j["after_barrier"] = nullptr;  // before any CTA barrier
  } else {
    j["after_barrier"] = barrier_key(a.after.key);
    j["after_barrier"]["generation"] = a.after.generation;
  }
  return j;
}

inline json address(const race_side& s, const race::race& r) {
  json j;
  if (r.region < s.r.race_info.regions.size()) {
    const auto& reg = s.r.race_info.regions[r.region];
    j["space"] = std::string(exec::name(reg.space));
    j["array"] = reg.name;
    std::uint64_t eb = reg.element_bytes == 0 ? 1 : reg.element_bytes;
    j["index"] = r.element;
    j["byte"] = r.offset % eb;
    j["element_bytes"] = eb;  // the unit of "index": 1 for an array declared as bytes (.b8)
  } else {
    j["region"] = r.region;
    j["byte_offset"] = r.offset;
  }
  return j;
}

inline race::source_lookup lookup(const race_side& s) {
  return [&s](std::uint32_t i) { return i < s.r.lines.size() ? s.r.lines[i] : race::source_line{}; };
}

inline json side_json(const race_side& s) {
  json j;
  j["side"] = s.side;
  j["ptx"] = s.kernel->path;
  j["entry"] = s.r.entry;
  j["grid"] = s.kernel->grid;
  j["block"] = s.kernel->block;
  j["verdict"] = race::verdict_name(s);
  j["ctas"] = s.r.ctas;
  j["thread_instructions"] = s.r.steps;
  j["race_free"] = s.r.race_free;
  j["well_synchronized"] = s.r.well_synchronized;
  j["benign_tolerated"] = s.r.benign_tolerated;  // --allow-benign: the races listed are a note
  j["cta"] = s.r.race_cta ? json(*s.r.race_cta) : json(nullptr);  // the CTA the races are from
  j["race_count"] = s.r.race_report ? s.r.race_report->race_count : 0;
  j["races"] = json::array();
  j["barriers"] = json::array();
  if (s.r.race_report) {
    const race::report& rep = *s.r.race_report;
    j["unlisted_races"] = rep.unlisted_races;
    j["unlisted_groups"] = rep.unlisted_groups;
    for (std::size_t g = 0; g < rep.races.size(); ++g) {
      const auto& grp = rep.races[g];
      json x;
      x["kind"] = std::string(race::name(grp.example.kind));
      x["benign"] = grp.all_benign;
      x["missing_proxy_fence"] = grp.example.missing_proxy_fence;
      x["count"] = grp.count;
      x["address"] = address(s, grp.example);
      x["first"] = access(s, grp.example.first, grp.example.region);
      x["second"] = access(s, grp.example.second, grp.example.region);
      x["message"] = race::format(grp.example, s.r.race_info, lookup(s));
      if (g < s.witnesses.size()) {
        const auto& w = s.witnesses[g];
        x["witness"] = {{"differs", w.differs}, {"schedule_a", w.schedule_a}, {"schedule_b", w.schedule_b}};
        if (w.differs) {
          x["witness"]["where"] = w.where;
          x["witness"]["a"] = w.a;
          x["witness"]["b"] = w.b;
        } else {
          x["witness"]["note"] = w.note;
        }
      }
      j["races"].push_back(std::move(x));
    }
    constexpr const char* problems[] = {"unsafe-recycling", "count-mismatch", "all-arrive", "divergence"};
    // Thread groups of a diagnostic: each instruction's threads as [first, last] ranges.
    auto groups = [&](const std::vector<race::thread_group>& gs) {
      json a = json::array();
      for (const auto& g : gs) {
        json x;
        json ranges = json::array();
        for (auto [first, last] : g.ranges) ranges.push_back({first, last});
        x["threads"] = std::move(ranges);
        x["count"] = g.threads;
        if (g.instruction == exec::no_instruction) {
          x["instruction"] = nullptr;  // ran past the kernel's last instruction
          x["location"] = nullptr;
        } else {
          x["instruction"] = g.instruction;
          x["location"] = location(s, g.instruction);
        }
        a.push_back(std::move(x));
      }
      return a;
    };
    for (const auto& d : rep.barriers) {
      json x;
      x["problem"] = problems[static_cast<std::size_t>(d.problem)];
      x["severity"] = d.is_error() ? "error" : "warning";
      x["barrier"] = barrier_key(d.where.key);
      x["generation"] = d.where.generation;
      x["thread"] = thread(s, d.thread);
      x["instruction"] = d.instruction;
      x["location"] = location(s, d.instruction);
      x["registrations"] = d.count;
      if (d.problem == race::barrier_problem::count_mismatch) {
        x["expected"] = d.expected;
        x["found"] = d.found;
      }
      if (d.problem == race::barrier_problem::unsafe_recycling) x["known_generation"] = d.known_generation;
      // all-arrive: the arrivals by arrive instruction; divergence: the registrations by barrier
      // instruction, and the threads that exited without reaching it by exit instruction.
      if (!d.arrived.empty()) x["arrived"] = groups(d.arrived);
      if (d.problem == race::barrier_problem::divergence) x["missing"] = groups(d.missing);
      x["message"] = race::format(d, lookup(s));
      j["barriers"].push_back(std::move(x));
    }
    j["unlisted_barrier_errors"] = rep.unlisted_barrier_errors;
    j["unlisted_barrier_warnings"] = rep.unlisted_barrier_warnings;
  }
  if (s.r.error) {
    const auto& e = *s.r.error;
    json x;
    x["kind"] = error_verdict(e.kind);
    x["message"] = e.message;
    if (s.r.failed_cta) x["cta"] = *s.r.failed_cta;
    x["thread"] = thread(s, e.thread);
    if (e.has_instruction) {
      x["instruction"] = e.instruction;
      x["location"] = location(s, e.instruction);
    }
    j["error"] = std::move(x);
  } else {
    j["error"] = nullptr;
  }
  j["inter_cta"] = json::array();
  for (const auto& c : s.r.conflicts) j["inter_cta"].push_back({{"message", c}});
  return j;
}

inline json report_json(const std::string& file, const std::vector<race_side>& sides, int code) {
  json j;
  j["file"] = file;
  // The verdict of the first kernel with the worst exit code.
  std::string worst = "race-free";
  int worst_code = exit_ok;
  for (const auto& s : sides)
    if (int c = race::exit_code(s); c > worst_code) worst_code = c, worst = race::verdict_name(s);
  j["verdict"] = worst;
  j["exit_code"] = code;
  j["kernels"] = json::array();
  for (const auto& s : sides) j["kernels"].push_back(side_json(s));
  return j;
}

// ---- SARIF 2.1.0 ----

struct rule {
  const char* id;
  const char* name;
  const char* description;
  const char* level;
};

inline constexpr rule rules[] = {
    {"gpueq.race.raw", "ReadAfterWriteRace", "A read races with an earlier write of the same address (no barrier orders them)", "error"},
    {"gpueq.race.war", "WriteAfterReadRace", "A write races with an earlier read of the same address (no barrier orders them)", "error"},
    {"gpueq.race.waw", "WriteAfterWriteRace", "Two writes of the same address race (no barrier orders them)", "error"},
    {"gpueq.deadlock", "Deadlock", "Threads wait at a barrier that can never complete", "error"},
    {"gpueq.barrier", "BarrierMisuse",
     "Barrier misuse: count mismatch, over-subscription, unsafe recycling of a named barrier, an arrive-only generation, "
     "barrier divergence (--strict-barriers)",
     "error"},
    {"gpueq.out-of-bounds", "OutOfBounds", "An access outside its array, or misaligned for its width", "error"},
    {"gpueq.uninitialized", "UninitializedRead", "A read of memory or a register never written", "error"},
    {"gpueq.inter-cta-race", "InterCtaRace", "Two CTAs touch the same global element, at least one writing, without atomics",
     "error"},
    {"gpueq.not-structured", "NotStructuredCta",
     "Control flow, an address or a barrier operand depends on data: the kernel could not be checked", "warning"},
    {"gpueq.unsupported", "Unsupported", "An instruction or value gpueq does not model: the kernel could not be checked",
     "warning"},
    {"gpueq.trap", "Trap", "The kernel executes trap or brkpt", "error"},
    {"gpueq.step-limit", "StepLimit", "The run reached the step limit (an unbounded loop?)", "warning"},
    {"gpueq.not-equivalent", "NotEquivalent",
     "The candidate kernel computes another function of the inputs than the reference, over the reals", "error"},
    {"gpueq.unknown", "Unknown", "gpueq could not decide whether the two kernels' outputs are equal", "warning"},
};

inline std::size_t rule_index(std::string_view id) {
  for (std::size_t i = 0; i < std::size(rules); ++i)
    if (rules[i].id == id) return i;
  return 0;
}

inline std::string_view error_rule(exec::error_kind k) {
  switch (k) {
    case exec::error_kind::deadlock: return "gpueq.deadlock";
    case exec::error_kind::barrier: return "gpueq.barrier";
    case exec::error_kind::out_of_bounds: case exec::error_kind::misaligned: return "gpueq.out-of-bounds";
    case exec::error_kind::uninitialized: return "gpueq.uninitialized";
    case exec::error_kind::not_structured: return "gpueq.not-structured";
    case exec::error_kind::trap: return "gpueq.trap";
    case exec::error_kind::limit: return "gpueq.step-limit";
    default: return "gpueq.unsupported";
  }
}

// A path as a URI reference (RFC 3986): absolute paths as file:// URIs, relative ones as
// relative references (against %SRCROOT%, the working directory); reserved bytes percent-encoded.
inline std::string uri_of(const std::string& path) {
  auto encode = [](std::string_view p) {
    std::string out;
    for (unsigned char c : p) {
      if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
        out += static_cast<char>(c);
      } else {
        constexpr char hex[] = "0123456789ABCDEF";
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out;
  };
  std::string g = std::filesystem::path(path).generic_string();
  if (!g.empty() && g.front() == '/') return "file://" + encode(g);
  return encode(g);
}

inline json physical(const std::string& path, std::uint32_t line, const std::string& text, int id) {
  json art = {{"uri", uri_of(path)}};
  if (!std::filesystem::path(path).is_absolute()) art["uriBaseId"] = "%SRCROOT%";
  json loc = json::object();
  if (id >= 0) loc["id"] = id;
  loc["physicalLocation"] = {{"artifactLocation", art}};
  if (line != 0) loc["physicalLocation"]["region"] = {{"startLine", line}};
  if (!text.empty()) loc["message"] = {{"text", text}};
  return loc;
}

// An instruction's locations: CUDA first when known, then PTX.
inline std::vector<json> instruction_locations(const race_side& s, std::uint32_t instruction,
                                                         const std::string& what, int& next_id) {
  std::vector<json> out;
  race::source_line l = instruction < s.r.lines.size() ? s.r.lines[instruction] : race::source_line{};
  if (l.cuda_line != 0)
    out.push_back(physical(cuda_path(l.cuda_file, s.kernel->path), l.cuda_line, what + " (CUDA source)", next_id++));
  out.push_back(physical(s.kernel->path, l.ptx_line != 0 ? l.ptx_line : s.r.entry_line,
                         what + (l.ptx_line != 0 ? " (PTX)" : " (PTX kernel)"), next_id++));
  return out;
}

inline json result(std::string_view rule_id, const char* level, const std::string& text,
                             std::vector<json> locations, std::vector<json> related) {
  json r;
  r["ruleId"] = std::string(rule_id);
  r["ruleIndex"] = rule_index(rule_id);
  r["level"] = level;
  r["message"] = {{"text", text}};
  // One primary location (SARIF: more only when every one must change); the rest are related.
  if (!locations.empty()) {
    json first = std::move(locations.front());
    first.erase("id");
    r["locations"] = json::array({first});
    for (std::size_t i = 1; i < locations.size(); ++i) related.insert(related.begin() + static_cast<std::ptrdiff_t>(i - 1), locations[i]);
  }
  if (!related.empty()) r["relatedLocations"] = related;
  return r;
}

inline json side_results(const race_side& s) {
  json results = json::array();
  std::string who = s.kernel->path + " (" + s.r.entry + ")";
  if (s.r.error) {
    const auto& e = *s.r.error;
    int id = 1;
    std::vector<json> locs;
    std::string what = std::string(exec::name(e.kind)) + ", thread " + std::to_string(e.thread);
    if (e.has_instruction) locs = instruction_locations(s, e.instruction, what, id);
    else locs.push_back(physical(s.kernel->path, s.r.entry_line, what + " (PTX kernel)", -1));
    std::string_view rid = error_rule(e.kind);
    // The run error's message is complete: kind, PTX and CUDA lines, thread.
    results.push_back(result(rid, rules[rule_index(rid)].level, e.message, std::move(locs), {}));
  }
  if (s.r.race_report) {
    for (const auto& g : s.r.race_report->races) {
      const race::race& r = g.example;
      int id = 1;
      constexpr const char* verbs[] = {"read", "write", "atomic"};
      auto side_text = [&](const race::race_access& a, const char* which) {
        return std::string(which) + " access: " + verbs[static_cast<std::size_t>(a.kind)] +
               (a.async_proxy ? " by the async proxy of thread " : " by thread ") + std::to_string(a.thread);
      };
      auto first = instruction_locations(s, r.first.instruction, side_text(r.first, "first"), id);
      auto second = instruction_locations(s, r.second.instruction, side_text(r.second, "second"), id);
      std::string text = race::format(r, s.r.race_info, lookup(s));
      if (g.count > 1) text += " [" + std::to_string(g.count) + " pairs" + (g.all_benign ? ", all benign" : "") + "]";
      constexpr const char* ids[] = {"gpueq.race.raw", "gpueq.race.war", "gpueq.race.waw"};
      bool benign = g.all_benign && r.kind == race::race_kind::waw;
      results.push_back(result(ids[static_cast<std::size_t>(r.kind)], benign ? "warning" : "error", who + ": " + text,
                               std::move(first), std::move(second)));
    }
    for (const auto& d : s.r.race_report->barriers) {
      int id = 1;
      auto locs = instruction_locations(s, d.instruction, "barrier", id);
      // The other instructions the diagnostic names (further arrives, a divergent branch's
      // barrier, the exits that skipped it) as related locations.
      std::vector<json> related;
      auto add = [&](const race::thread_group& g, const std::string& what) {
        if (g.instruction == d.instruction || g.instruction == exec::no_instruction) return;
        for (auto& l : instruction_locations(s, g.instruction, what, id)) related.push_back(std::move(l));
      };
      for (const auto& g : d.arrived)
        add(g, (d.problem == race::barrier_problem::all_arrive ? "arrive: " : "barrier: ") + race::detail::threads_text(g));
      for (const auto& g : d.missing) add(g, "exit: " + race::detail::threads_text(g));
      results.push_back(result("gpueq.barrier", d.is_error() ? "error" : "warning", who + ": " + race::format(d, lookup(s)),
                               std::move(locs), std::move(related)));
    }
  }
  for (const auto& c : s.r.conflicts)
    results.push_back(result("gpueq.inter-cta-race", "error", who + ": inter-CTA race: " + c,
                             {physical(s.kernel->path, s.r.entry_line, "kernel", -1)}, {}));
  return results;
}

// A SARIF log of one run of gpueq over `results` (side_results and comparison_result).
inline json sarif_log(json results, int code, const std::string& cwd) {
  json driver;
  driver["name"] = "gpueq";
  driver["version"] = "0.1.0";
  driver["rules"] = json::array();
  for (const auto& r : rules)
    driver["rules"].push_back({{"id", r.id},
                               {"name", r.name},
                               {"shortDescription", {{"text", r.description}}},
                               {"defaultConfiguration", {{"level", r.level}}}});
  json run;
  run["tool"] = {{"driver", driver}};
  std::string base = uri_of(cwd);
  if (base.empty() || base.back() != '/') base += '/';
  run["originalUriBaseIds"] = {{"%SRCROOT%", {{"uri", base}}}};
  run["invocations"] = json::array({{{"executionSuccessful", true}, {"exitCode", code}}});
  run["results"] = std::move(results);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
}

inline json sarif(const std::vector<race_side>& sides, int code, const std::string& cwd) {
  json results = json::array();
  for (const auto& s : sides)
    for (auto& r : side_results(s)) results.push_back(std::move(r));
  return sarif_log(std::move(results), code, cwd);
}

// The comparison's result for `gpueq check --sarif`: a difference (error) or an undecided element
// (warning), at the candidate kernel's entry (an output element has no single source line).
inline json comparison_result(const race_side& candidate, bool different, const std::string& text) {
  return result(different ? "gpueq.not-equivalent" : "gpueq.unknown", different ? "error" : "warning", text,
                {physical(candidate.kernel->path, candidate.r.entry_line, "candidate kernel", -1)}, {});
}

// ---- text ----

// `gpueq race`'s text report of one kernel.
inline void race_text(std::ostream& out, const race_side& side, bool witnesses) {
  const check::side_report& r = side.r;
  out << side.kernel->ptx << " (" << r.name << "): ";
  if (r.error) {
    out << exec::name(r.error->kind) << "\n  " << r.error->message << "\n";
  } else if (!r.race_text.empty()) {
    out << (r.benign_tolerated ? "benign races only (same-value writes, tolerated by --allow-benign)"
            : r.race_free      ? "not well-synchronized"
                               : "racy")
        << "\n" << r.race_text;
    if (witnesses)
      for (std::size_t g = 0; g < side.witnesses.size(); ++g) {
        const auto& ex = r.race_report->races[g].example;
        const auto& w = side.witnesses[g];
        out << "  witness for threads " << ex.first.thread << " and " << ex.second.thread << ": ";
        if (w.differs)
          out << "under " << w.schedule_a << " " << w.where << " = " << w.a << "; under " << w.schedule_b << " " << w.where
              << " = " << w.b << " (float32, seeded random inputs)\n";
        else
          out << w.note << "\n";
      }
  } else if (!r.conflicts.empty()) {
    out << "inter-CTA race: " << r.conflicts.front() << "\n";
  } else {
    out << "race-free and well-synchronized (" << r.ctas << " CTA(s), " << r.steps << " thread-instructions)\n";
  }
}

inline std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

struct check_text_options {
  bool quiet = false;                  // the verdict line alone
  bool all = false;                    // every element was decided (no "stopped at the first difference")
  std::string counterexample_written;  // the file the counterexample's input went to, if any
};

// The line that says what a result holds for when tensors have given contents ("for the given
// contents of idx (a permutation of 0..255, seed 7), m (constant -inf)"); empty when none do.
inline std::string given_line(const std::vector<std::pair<std::string, std::string>>& given) {
  std::string line;
  for (const auto& [name, what] : given) line += (line.empty() ? "for the given contents of " : ", ") + name + " (" + what + ")";
  return line;
}

// `gpueq check`'s text report of one pair.
inline void check_text(std::ostream& out, const std::string& file, const check::check_result& r,
                       const check_text_options& o = {}) {
  out << file << ": " << check::name(r.v) << "\n";
  if (o.quiet) return;
  out << "  " << r.summary << "\n";
  if (!r.given.empty()) out << "  " << given_line(r.given) << "\n";
  // Every further finding, by precedence (check/verdict.hpp), on one line each.
  for (std::size_t i = 1; i < r.findings.size(); ++i) {
    const std::string& m = r.findings[i].message;
    out << "  also " << check::name(r.findings[i].v) << ": " << m.substr(0, m.find('\n')) << "\n";
  }
  for (auto& n : r.notes) {  // in full: the races tolerated, indented under the note
    std::string text = n;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 3) text.replace(at, 1, "\n  ");
    out << "  note: " << text << "\n";
  }
  for (auto& e : r.examples) out << "  " << e << "\n";
  if (r.v == check::verdict::different && !o.all) out << "  (stopped at the first difference; --all decides every element)\n";
  if (auto& ce = r.counterexample) {
    out << "  counterexample: at " << ce->tensor << "[" << ce->index << "] the reference computes " << ce->real_reference
        << " and the candidate " << ce->real_candidate << " over the reals";
    if (ce->float_reference && ce->float_candidate) out << "; in float32 " << *ce->float_reference << " vs " << *ce->float_candidate;
    out << "\n";
    if (!ce->float_note.empty()) out << "  (" << ce->float_note << ")\n";
    if (!o.counterexample_written.empty()) out << "  input written to " << o.counterexample_written << "\n";
  }
  if (r.float32)
    out << "  float32 on random inputs: max |difference| " << r.float32->max_abs << " (at " << r.float32->worst
        << "), max relative " << r.float32->max_rel << " over " << r.float32->elements << " elements\n";
}

// What a check cost: times and the term store's size vary between runs and with -j, so they are
// statistics (gpueq check prints them on stderr, and under "statistics" in JSON), not the report,
// whose bytes are the same for every run and every -j.
inline void check_statistics(std::ostream& out, const std::string& file, const check::check_result& r) {
  out << file << ": run " << seconds(r.run_seconds) << ", decide " << seconds(r.decide_seconds) << ", "
      << r.reference.steps + r.candidate.steps << " thread-instructions, " << r.terms << " terms\n";
}

// ---- JSON of a checked pair ----

inline nlohmann::json check_json(const std::string& file, const check::check_result& r) {
  nlohmann::json j;
  j["pair"] = file;
  j["verdict"] = check::name(r.v);
  j["summary"] = r.summary;
  j["differences"] = r.examples;
  j["findings"] = nlohmann::json::array();
  for (auto& f : r.findings) j["findings"].push_back({{"verdict", check::name(f.v)}, {"side", f.side}, {"message", f.message}});
  j["notes"] = r.notes;
  if (!r.given.empty()) {
    j["given_contents"] = nlohmann::json::object();
    for (const auto& [name, what] : r.given) j["given_contents"][name] = what;
  }
  for (auto* side : {&r.reference, &r.candidate}) {
    nlohmann::json& js = j[side->name];
    js["ctas"] = side->ctas;
    js["thread_instructions"] = side->steps;
    if (side->error) js["error"] = {{"kind", exec::name(side->error->kind)}, {"message", side->error->message}};
    if (!side->race_text.empty()) js["races"] = side->race_text;
    if (!side->conflicts.empty()) js["inter_cta"] = side->conflicts;
  }
  if (r.compared)
    j["elements"] = {{"total", r.compared->elements}, {"equal", r.compared->equal}, {"different", r.compared->different},
                     {"unknown", r.compared->unknown}, {"written_by_one", r.compared->written_by_one},
                     {"unwritten", r.compared->unwritten}, {"by_fingerprint", r.compared->by_fingerprint}};
  if (r.counterexample)
    j["counterexample"] = {{"tensor", r.counterexample->tensor}, {"index", r.counterexample->index},
                           {"real_reference", r.counterexample->real_reference},
                           {"real_candidate", r.counterexample->real_candidate}};
  if (r.float32)
    j["float32"] = {{"max_abs", r.float32->max_abs}, {"max_rel", r.float32->max_rel}, {"elements", r.float32->elements},
                    {"worst", r.float32->worst}};
  j["thread_instructions"] = r.reference.steps + r.candidate.steps;
  // Varies between runs and with -j (check_statistics).
  j["statistics"] = {{"seconds", {{"run", r.run_seconds}, {"decide", r.decide_seconds}}}, {"terms", r.terms}};
  return j;
}

// The input of a counterexample, every input tensor, as `--counterexample FILE` writes it.
inline nlohmann::json counterexample_json(const std::string& file, const check::counterexample_report& ce) {
  nlohmann::json j;
  j["pair"] = file;
  j["element"] = {{"tensor", ce.tensor}, {"index", ce.index}};
  j["real"] = {{"reference", ce.real_reference}, {"candidate", ce.real_candidate}};
  if (ce.float_reference) j["float32"]["reference"] = *ce.float_reference;
  if (ce.float_candidate) j["float32"]["candidate"] = *ce.float_candidate;
  j["tensors"] = ce.tensors;
  j["scalars"] = ce.scalars;
  return j;
}

// The SARIF results of one checked pair: every finding of the kernels that ran (races, barrier
// problems, run errors, inter-CTA conflicts, at their lines) and the comparison's outcome.
inline void add_check_results(const std::string& file, const check::pair_spec& spec, const check::check_result& r,
                              json& results) {
  std::vector<race_side> sides;
  if (!spec.reference_spec) sides.push_back({"reference", &spec.reference, r.reference, {}});
  sides.push_back({"candidate", &spec.candidate, r.candidate, {}});
  for (const auto& side : sides)
    for (auto& x : side_results(side)) results.push_back(std::move(x));
  if (r.v == check::verdict::different || r.v == check::verdict::unknown) {
    std::string text = file + ": " + std::string(check::name(r.v)) + ": " + r.summary;
    if (!r.given.empty()) text += " (" + given_line(r.given) + ")";
    if (!r.examples.empty()) text += "\n" + r.examples.front();
    results.push_back(comparison_result(sides.back(), r.v == check::verdict::different, text));
  }
}

}  // namespace gpueq::cli::report
