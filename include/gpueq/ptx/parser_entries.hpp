// The bodies of the parser's entry points (declared and documented in ptx/parser.hpp): included
// by parser.hpp in the header-only build, compiled once into gpueq::compiled otherwise
// (support/entry.hpp, src/ptx_entries.cpp).
#pragma once

#include <gpueq/ptx/parser.hpp>

namespace gpueq::ptx {

GPUEQ_ENTRY module parse(std::string_view text, std::string file) { return detail::parser(text, std::move(file)).run(); }

GPUEQ_ENTRY module parse_file(const std::string& path) {
  std::string text = support::read_input_file(path, "PTX file");
  return parse(text, path);
}

}  // namespace gpueq::ptx
