// The registry of gpueq subcommands. Each cmd_*.cpp registers one subcommand with a static
// `registrar`; main.cpp only parses and dispatches. Exit codes are shared by all subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <string_view>
#include <string>
#include <vector>

namespace gpueq::ptx {
struct module;
}

namespace gpueq::cli {

// Exit codes documented in the README and in `gpueq --help`.
enum exit_code : int {
  exit_ok = 0,           // equal / equivalent / race-free / success
  exit_different = 1,    // not equal / not equivalent
  exit_race = 2,         // race, deadlock, barrier error or undefined behaviour
  exit_unknown = 3,      // could not decide, or not a structured CTA
  exit_bad_input = 4,    // syntax error, missing file, bad option
  exit_resource = 5,     // an allocation failed: a resource limit, not a verdict or bad input
};

// Prints the error that ended subcommand `command` on stderr and gives its exit code:
// std::bad_alloc (and std::length_error, a size no allocation can hold) is a resource limit,
// exit 5 ("gpueq COMMAND: error: resource limit: ..."), so a run that ran out of memory is never
// reported as bad input; anything else is bad input, exit 4, printed compiler-style (error_line).
// `where` names the input for an error that carries no position of its own (a pair file).
int report_failure(const std::exception& e, const std::string& command, const std::string& where = "");

// An error as one compiler-style line for editors and CI problem matchers: `file:line:col: error:
// reason` for a diagnostic with a position (`file: error: reason` with a file alone), otherwise
// `WHERE: error: message`, WHERE being `where` or `gpueq COMMAND`.
std::string error_line(const std::exception& e, const std::string& command, const std::string& where = "");

// --max-memory by accounting (memory_budget.cpp): from this call on every heap allocation of the
// process is counted, and one that would take the heap past `mib` MiB throws
// memory_budget_exceeded (0: no limit, and nothing is counted).
// Returns false where the C library cannot say a block's size (not glibc): no accounting.
bool set_memory_budget(std::uint64_t mib);
class memory_budget_exceeded : public std::bad_alloc {
 public:
  memory_budget_exceeded(std::size_t request, std::size_t live, std::size_t budget);
  const char* what() const noexcept override { return text_; }

 private:
  char text_[160];
};

// Every subcommand's --max-memory MiB: main reads it from the parsed subcommand and sets the budget;
// `target` also reaches the engine's resident-memory check in run, race and check.
inline CLI::Option* add_max_memory_option(CLI::App* c, std::uint64_t& target) {
  return c->add_option("--max-memory", target,
                       "Stop (exit 5) when the process's heap would exceed this many MiB (every allocation "
                       "is counted; the engine also checks its resident memory)");
}

// A setup function adds its subcommand to the app and returns what runs it.
using runner = std::function<int()>;
using setup_fn = std::function<runner(CLI::App&)>;

struct command {
  std::string name;
  setup_fn setup;
};

inline std::vector<command>& registry() {
  static std::vector<command> commands;
  return commands;
}

struct registrar {
  registrar(std::string name, setup_fn setup) {
    registry().push_back({std::move(name), std::move(setup)});
  }
};

// Reads a whole file (support::read_input_file); throws naming the file when it cannot, or when it
// is a directory. `what` names the kind of file in the message.
std::string read_file(const std::string& path, std::string_view what = "file");

// Prints what the PTX parser accepted but doubts (an unknown .target or .version) on stderr as
// `file:line:col: warning: reason`, each file's once per run (both sides of a pair, or several
// pairs, often share a PTX file).
void print_warnings(const ptx::module& m);

// Threads to use when the user gave none (-j 0): every core.
unsigned default_jobs();

// Progress on stderr for long runs: nothing during the first two seconds, then at most one line
// every two seconds ("gpueq: FILE: decide 1200/16384 (3.1 s)"); on a terminal the line is
// rewritten in place. Silent when disabled (-q, --json).
class progress {
 public:
  progress(std::string what, bool enabled);
  ~progress();
  void operator()(std::string_view phase, std::uint64_t done, std::uint64_t total);

 private:
  std::string what_;
  bool enabled_, tty_, shown_ = false;
  double start_, last_ = 0;
};

}  // namespace gpueq::cli
