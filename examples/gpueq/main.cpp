// gpueq: proves two GPU kernels equivalent, or shows an input on which they differ.
#include "commands.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace gpueq::cli {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}
}  // namespace gpueq::cli

int main(int argc, char** argv) {
  using namespace gpueq::cli;
  CLI::App app{
      "gpueq: formal equivalence, race and deadlock checking of GPU kernels (PTX).\n"
      "Exit codes: 0 equal/ok, 1 different, 2 race/deadlock/UB, 3 unknown, 4 bad input."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpueq 0.1.0");
  auto& commands = registry();
  std::sort(commands.begin(), commands.end(),
            [](const command& a, const command& b) { return a.name < b.name; });
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
        return run();
      } catch (const std::exception& e) {
        std::cerr << "gpueq " << sub->get_name() << ": error: " << e.what() << '\n';
        return exit_bad_input;
      }
    }
  }
  return exit_bad_input;
}
