// The corpus's known gaps: PTX files under examples/kernels that gpueq cannot run yet (compiler
// output committed as it is, e.g. Triton's sm_90a kernels), listed in a known_gaps.txt beside them
// (examples/kernels/triton/known_gaps.txt): "<file.ptx> parse|unsupported <why>" per line, '#'
// comments. The corpus-wide PTX tests skip them and check that each still fails as listed.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace gpueq::test {

// path of each listed PTX file -> "parse" or "unsupported"
inline std::map<std::filesystem::path, std::string> known_gaps(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::map<fs::path, std::string> gaps;
  if (!fs::exists(root)) return gaps;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().filename() != "known_gaps.txt") continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string file, kind;
      if (!(words >> file >> kind) || file.starts_with("#")) continue;
      gaps[e.path().parent_path() / file] = kind;
    }
  }
  return gaps;
}

}  // namespace gpueq::test
