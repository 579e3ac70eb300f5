// Reading a whole input file (PTX, a spec, an identity list) for the front-ends. One function, so
// that every format rejects the same non-files the same way: a directory opens as a stream on
// Linux and reads as empty, which a parser would then report as an empty or malformed input far
// from the real mistake; a path that names no regular file is an error naming the path instead.
#pragma once

#include <gpueq/support/diagnostics.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpueq::support {

// The bytes of the regular file at `path`; throws diagnostic_error naming the path (no line)
// when it is a directory or cannot be read. `what` names the kind of file in the message
// ("PTX file", "spec file").
inline std::string read_input_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw diagnostic_error({path, {}, "is a directory, not a " + std::string(what)});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw diagnostic_error({path, {}, "cannot open the " + std::string(what)});
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw diagnostic_error({path, {}, "cannot read the " + std::string(what)});
  return std::move(ss).str();
}

}  // namespace gpueq::support
