// Readable names for the C++ symbols nvcc puts in PTX: a function-local `__shared__ float s[64]`
// in `template <unsigned B> void body(...)` is `_ZZ4bodyILj64EEvPKfPfiE1s` in PTX, and reports
// should say `body<64u>::s`. Uses the C++ ABI demangler of the toolchain; names that are not
// mangled come back unchanged.
#pragma once

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace gpueq::support {

// The demangled symbol without return type and parameter lists: "body<64u>::s".
inline std::string readable_symbol(std::string_view mangled) {
  if (mangled.substr(0, 2) != "_Z") return std::string(mangled);
  int status = 0;
  std::string in(mangled);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(in.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return in;
  std::string d = out.get();
  // Drop every parenthesized parameter list and, before each qualified name, a return type.
  std::string r;
  int parens = 0, angles = 0;
  for (char c : d) {
    if (c == '(') ++parens;
    if (parens == 0) {
      if (c == '<') ++angles;
      if (c == '>') --angles;
      if (c == ' ' && angles == 0) {
        r.clear();  // what came before a top-level space was a return type
        continue;
      }
      r += c;
    }
    if (c == ')') --parens;
  }
  return r.empty() ? d : r;
}

}  // namespace gpueq::support
