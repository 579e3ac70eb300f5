// The registry of gpueq subcommands. Each cmd_*.cpp registers one subcommand with a static
// `registrar`; main.cpp only parses and dispatches. Exit codes are shared by all subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

namespace gpueq::cli {

// Exit codes documented in the README and in `gpueq --help`.
enum exit_code : int {
  exit_ok = 0,           // equal / equivalent / race-free / success
  exit_different = 1,    // not equal / not equivalent
  exit_race = 2,         // race, deadlock, barrier error or undefined behaviour
  exit_unknown = 3,      // could not decide, or not a structured CTA
  exit_bad_input = 4,    // syntax error, missing file, bad option
};

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

// Reads a whole file; throws std::runtime_error naming the file when it cannot.
std::string read_file(const std::string& path);

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
