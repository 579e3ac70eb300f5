// Fuzz target for the term syntax and the decision procedure: any byte string either parses or
// throws a parse_error with a position; whatever parses prints and parses back to the same term;
// an identity `LHS == RHS` that parses is decided without crashing (small budgets, so a fuzz run
// stays fast), and a `different` verdict carries a witness. Anything else aborts.
#include <gpueq/canon.hpp>
#include <gpueq/term.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {
[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "%s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gpueq::term::store s;
  std::pair<gpueq::term::term_id, gpueq::term::term_id> sides;
  try {
    if (text.find("==") != std::string_view::npos) {
      sides = gpueq::term::parse_identity(s, text);
    } else {
      gpueq::term::term_id t = gpueq::term::parse(s, text);
      sides = {t, t};
    }
  } catch (const gpueq::term::parse_error& e) {
    if (e.line == 0 || e.column == 0 || e.reason.empty()) fail("parse error without a position", e.what());
    return 0;
  }
  for (gpueq::term::term_id t : {sides.first, sides.second}) {
    std::string printed = gpueq::term::to_string(s, t);
    try {
      if (gpueq::term::parse(s, printed) != t) fail("round trip changed the term", printed);
    } catch (const gpueq::term::parse_error& e) {
      fail("printed term does not parse", e.what());
    }
  }
  gpueq::canon::decide_options options;
  options.normal_form.term_budget = 20000;
  options.search_points = 6;
  gpueq::canon::verdict v = gpueq::canon::decide(s, sides.first, sides.second, options);
  if (v.kind == gpueq::canon::verdict_kind::different && !v.witness) fail("different without a witness", text);
  if (v.kind == gpueq::canon::verdict_kind::unknown && v.reason.empty()) fail("unknown without a reason", text);
  return 0;
}
