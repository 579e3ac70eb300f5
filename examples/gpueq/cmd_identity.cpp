// `gpueq identity`: decide real identities written in the term syntax.
//   gpueq identity 'exp(x)*exp(y)' 'exp(x + y)'
//   gpueq identity --file identities.txt      (one `LHS == RHS` per line; '#' starts a comment)
#include "commands.hpp"

#include <gpueq/canon.hpp>
#include <gpueq/term.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace gpueq;

struct options {
  std::string lhs, rhs, file;
  bool json = false, fast = false, quiet = false;
  std::uint64_t seed = canon::decide_options{}.seed;
  std::uint64_t max_memory = 0;  // enforced by main (memory_budget.cpp)
  std::size_t max_chars = 2000;
  std::uint64_t max_expansion_mib = canon::normal_form_options{}.expansion_bytes >> 20;
};

struct outcome {
  std::size_t line = 0;  // 0 for the command-line identity
  std::optional<canon::verdict> verdict;
  std::string error;  // a syntax error, with its position
  double seconds = 0;
};

// The source line with a caret under the error column, for short inputs.
std::string caret(std::string_view text, std::size_t offset) {
  std::size_t begin = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  std::size_t end = text.find('\n', offset);
  if (end == std::string_view::npos) end = text.size();
  if (end - begin > 160) return {};
  return "  " + std::string(text.substr(begin, end - begin)) + "\n  " + std::string(offset - begin, ' ') + "^\n";
}

// "WHERE:COLUMN: reason" and the caret line, for a syntax error in `text`.
std::string syntax_error(const std::string& where, const term::parse_error& e, std::string_view text) {
  return where + ":" + std::to_string(e.column) + ": " + e.reason + "\n" + caret(text, e.offset);
}

void print_text(const term::store& s, const outcome& o, const options& opt, std::string_view where) {
  if (!o.error.empty()) {
    std::cout << where << ": error: " << o.error;
    return;
  }
  const canon::verdict& v = *o.verdict;
  if (o.line) std::cout << where << ": ";
  std::cout << canon::to_string(v.kind) << " (" << v.method << ")";
  if (v.kind == canon::verdict_kind::unknown) std::cout << ": " << v.reason;
  std::cout << '\n';
  if (v.witness) {
    std::cout << "  the two sides differ at\n";
    for (auto& iv : v.witness->inputs)
      std::cout << "    " << term::to_string(s, iv.input) << " = " << support::to_string(iv.value) << '\n';
    std::cout << "  lhs = " << v.witness->lhs.str(20) << "\n  rhs = " << v.witness->rhs.str(20) << '\n';
  }
  (void)opt;
}

nlohmann::ordered_json to_json(const term::store& s, const outcome& o, const options& opt) {
  nlohmann::ordered_json j;
  if (o.line) j["line"] = o.line;
  if (!o.error.empty()) {
    j["verdict"] = "bad-input";
    j["error"] = o.error;
    return j;
  }
  const canon::verdict& v = *o.verdict;
  j["verdict"] = std::string(canon::to_string(v.kind));
  j["method"] = v.method;
  j["seconds"] = o.seconds;
  if (!v.reason.empty()) j["reason"] = v.reason;
  if (v.witness) {
    nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
    for (auto& iv : v.witness->inputs)
      inputs[term::to_string(s, iv.input)] = support::to_string(iv.value);
    j["counterexample"] = {{"inputs", inputs}, {"lhs", v.witness->lhs.str(30)}, {"rhs", v.witness->rhs.str(30)}};
  }
  (void)opt;
  return j;
}

int run(const options& opt) {
  term::store s;
  canon::decide_options dopt;
  dopt.fast = opt.fast;
  dopt.seed = opt.seed;
  dopt.normal_form.expansion_bytes = opt.max_expansion_mib << 20;
  canon::decider decide(s, dopt);
  std::vector<outcome> outcomes;
  std::string text;
  std::string source;
  term::let_table lets;  // `let NAME = EXPR` lines of a --file

  // Progress on long runs: a line on stderr every few seconds (never with -q or --json).
  const auto started = std::chrono::steady_clock::now();
  auto last_progress = started;
  std::size_t decided = 0, total_lines = 0;
  auto decide_one = [&](outcome& o, term::term_id f, term::term_id g) {
    auto t0 = std::chrono::steady_clock::now();
    o.verdict = decide(f, g);
    auto t1 = std::chrono::steady_clock::now();
    o.seconds = std::chrono::duration<double>(t1 - t0).count();
    ++decided;
    if (!opt.quiet && !opt.json && t1 - last_progress > std::chrono::seconds(5)) {
      last_progress = t1;
      std::cerr << "gpueq identity: " << decided << " decided (line " << o.line << " of " << total_lines << "), "
                << static_cast<long>(std::chrono::duration<double>(t1 - started).count()) << " s\n";
    }
  };

  if (!opt.file.empty()) {
    if (!opt.lhs.empty()) throw std::runtime_error("give either LHS RHS or --file, not both");
    text = cli::read_file(opt.file);
    source = opt.file;
    total_lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    std::size_t line_no = 0, begin = 0;
    while (begin <= text.size()) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + begin, end - begin);
      ++line_no;
      std::size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && line[first] != '#') {
        outcome o;
        o.line = line_no;
        bool binding = term::is_let(line);
        try {
          if (binding) {
            term::parse_let(s, line, lets);
          } else {
            auto [f, g] = term::parse_identity(s, line, &lets);
            decide_one(o, f, g);
          }
        } catch (const term::parse_error& e) {
          o.error = syntax_error(std::to_string(line_no), e, line);
        }
        if (!binding || !o.error.empty()) {  // a let line reports only its errors
          outcomes.push_back(std::move(o));
          if (!opt.quiet && !opt.json) print_text(s, outcomes.back(), opt, source + ":" + std::to_string(line_no));
        }
      }
      if (end == text.size()) break;
      begin = end + 1;
    }
    if (outcomes.empty()) throw std::runtime_error("'" + opt.file + "' holds no identity (expected lines 'LHS == RHS')");
  } else {
    if (opt.lhs.empty() || opt.rhs.empty()) throw std::runtime_error("give LHS and RHS, or --file F");
    outcome o;
    term::term_id sides[2];
    const std::string* texts[2] = {&opt.lhs, &opt.rhs};
    const char* names[2] = {"lhs", "rhs"};
    for (int i = 0; i < 2 && o.error.empty(); ++i) {
      try {
        sides[i] = term::parse(s, *texts[i]);
      } catch (const term::parse_error& e) {
        o.error = syntax_error(names[i], e, *texts[i]);
      }
    }
    if (o.error.empty()) decide_one(o, sides[0], sides[1]);
    outcomes.push_back(std::move(o));
    if (!opt.quiet && !opt.json) print_text(s, outcomes.back(), opt, "identity");
  }

  std::size_t equal = 0, different = 0, unknown = 0, bad = 0;
  for (auto& o : outcomes) {
    if (!o.error.empty()) ++bad;
    else if (o.verdict->kind == canon::verdict_kind::equal) ++equal;
    else if (o.verdict->kind == canon::verdict_kind::different) ++different;
    else ++unknown;
  }
  if (opt.json) {
    nlohmann::ordered_json report;
    report["identities"] = nlohmann::ordered_json::array();
    for (auto& o : outcomes) report["identities"].push_back(to_json(s, o, opt));
    report["summary"] = {{"equal", equal}, {"different", different}, {"unknown", unknown}, {"bad_input", bad}};
    std::cout << report.dump(2) << '\n';
  } else if (outcomes.size() > 1 && !opt.quiet) {
    std::cout << equal << " equal, " << different << " different, " << unknown << " unknown";
    if (bad) std::cout << ", " << bad << " bad input";
    std::cout << '\n';
  }
  if (bad) return cli::exit_bad_input;
  if (different) return cli::exit_different;
  if (unknown) return cli::exit_unknown;
  return cli::exit_ok;
}

const cli::registrar reg{"identity", [](CLI::App& app) -> cli::runner {
  auto opt = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "identity",
      "Decide whether two real expressions are equal for every input.\n"
      "A --file holds one 'LHS == RHS' per line; 'let NAME = EXPR' lines bind names for later lines.\n"
      "Syntax: inputs x, alpha, q[2][5]; numbers 3, 0.125, 1/3, -2.5e-3; inf; + - * / ^ (integer\n"
      "exponents); exp exp2 log log2 sqrt rsqrt rcp max min tanh erf abs sin cos.\n"
      "Exit: 0 equal, 1 different (a separating input is printed), 3 unknown, 4 bad input, 5 resource limit.");
  cmd->add_option("lhs", opt->lhs, "left-hand side");
  cmd->add_option("rhs", opt->rhs, "right-hand side");
  cmd->add_option("--file,-f", opt->file, "read identities 'LHS == RHS', one per line ('#' comments)");
  cmd->add_flag("--json", opt->json, "print a machine-readable report");
  cmd->add_flag("--fast", opt->fast, "accept equal fingerprints as equal (probabilistic, no normal form)");
  cmd->add_flag("--quiet,-q", opt->quiet, "print nothing; the exit code tells");
  cmd->add_option("--seed", opt->seed, "seed of fingerprints and of the counterexample search");
  cmd->add_option("--max-expansion", opt->max_expansion_mib,
                  "MiB one expansion of a normal form may take (a product of sums, a power of a sum); a larger "
                  "one makes the verdict unknown (default 1024)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  cli::add_max_memory_option(cmd, opt->max_memory);
  return [opt] { return run(*opt); };
}};

}  // namespace
