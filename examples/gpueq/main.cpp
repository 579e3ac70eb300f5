// gpueq: proves two GPU kernels equivalent, or shows an input on which they differ.
#include "commands.hpp"

#include <gpueq/ptx/ir.hpp>
#include <gpueq/support/files.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <iostream>
#include <set>
#include <new>
#include <stdexcept>

namespace gpueq::cli {
std::string read_file(const std::string& path, std::string_view what) { return support::read_input_file(path, what); }

std::string error_line(const std::exception& e, const std::string& command, const std::string& where) {
  if (auto* d = dynamic_cast<const support::diagnostic_error*>(&e); d && !d->file().empty()) {
    support::diagnostic x = d->diag();
    x.reason = "error: " + x.reason;
    return x.str();
  }
  return (where.empty() ? "gpueq " + command : where) + ": error: " + e.what();
}

int report_failure(const std::exception& e, const std::string& command, const std::string& where) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e)) {
    if (dynamic_cast<const memory_budget_exceeded*>(&e))  // memory_budget.cpp's accounting
      std::cerr << "gpueq " << command << ": error: resource limit: " << e.what() << '\n';
    else
      std::cerr << "gpueq " << command << ": error: resource limit: out of memory (" << e.what()
                << "): the check needs more memory than the process can get\n";
    return exit_resource;
  }
  std::cerr << error_line(e, command, where) << '\n';
  return exit_bad_input;
}

void print_warnings(const ptx::module& m) {
  static std::set<std::string> printed;
  if (m.warnings.empty() || !printed.insert(m.file).second) return;
  for (const auto& w : m.warnings) {
    support::diagnostic d = w;
    d.reason = "warning: " + d.reason;
    std::cerr << d.str() << '\n';
  }
}

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

progress::progress(std::string what, bool enabled)
    : what_(std::move(what)), enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), start_(now()) {}

progress::~progress() {
  if (shown_ && tty_) std::cerr << "\r\x1b[K" << std::flush;  // the report follows on stdout
}

void progress::operator()(std::string_view phase, std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  double t = now();
  if (t - start_ < 2 || t - last_ < 2) return;
  last_ = t;
  shown_ = true;
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f s)", t - start_);
  std::cerr << (tty_ ? "\r\x1b[K" : "") << "gpueq: " << what_ << ": " << phase << " " << done << "/" << total
            << (phase == "run" ? " CTAs" : " elements") << buf << (tty_ ? "" : "\n") << std::flush;
}
}  // namespace gpueq::cli

int main(int argc, char** argv) {
  using namespace gpueq::cli;
  CLI::App app{
      "gpueq: formal equivalence, race and deadlock checking of GPU kernels (PTX).\n"
      "Exit codes: 0 equal/ok, 1 different, 2 race/deadlock/UB, 3 unknown, 4 bad input, 5 resource limit\n"
      "(out of memory)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpueq 0.1.0");
  auto& commands = registry();
  std::sort(commands.begin(), commands.end(),
            [](const command& a, const command& b) { return a.name < b.name; });
  // Setting up a subcommand's options costs about as much as a small check (0.1 ms for all five):
  // a command line that names its subcommand first sets up that one alone. Anything else (no
  // subcommand, --help or --version first, a misspelt name) sets up all, so that help and the
  // error messages list every subcommand.
  if (argc > 1) {
    auto named = std::find_if(commands.begin(), commands.end(), [&](const command& c) { return c.name == argv[1]; });
    if (named != commands.end()) {
      command only = std::move(*named);
      commands.assign(1, std::move(only));
    }
  }
  std::vector<std::pair<CLI::App*, runner>> runners;
  for (auto& c : commands) {
    auto before = app.get_subcommands({}).size();
    runner r = c.setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() != before + 1) {
      std::cerr << "internal error: command '" << c.name << "' did not register\n";
      return exit_bad_input;
    }
    runners.emplace_back(app.get_subcommand(c.name), std::move(r));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_bad_input;
  }
  for (auto& [sub, run] : runners) {
    if (sub->parsed()) {
      try {
        // Every subcommand has --max-memory; it is enforced here, for the whole process.
        if (auto* limit = sub->get_option_no_throw("--max-memory"); limit && limit->count() > 0) {
          auto mib = limit->as<std::uint64_t>();
          if (mib > 0 && !set_memory_budget(mib))
            std::cerr << "gpueq " << sub->get_name()
                      << ": warning: --max-memory is enforced only by the engine's resident-memory "
                         "check on this C library\n";
        }
        return run();
      } catch (const std::exception& e) {
        return report_failure(e, sub->get_name());
      }
    }
  }
  return exit_bad_input;
}
