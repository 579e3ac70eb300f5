// Fuzz target for the term syntax and the decision procedure: any byte string either parses or
// throws a parse_error with a position; whatever parses prints and parses back to the same term;
// an identity `LHS == RHS` that parses is decided without crashing (small budgets, so a fuzz run
// stays fast; powers nested past exponent 4096 are only parsed, see below), and a `different` verdict
// carries a witness. Anything else aborts.
#include <gpueq/canon.hpp>
#include <gpueq/term.hpp>

#include <algorithm>
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
// The product of the integer literals after every `^` (saturating): a bound on how far powers
// nest.
double exponent_product(std::string_view text) {
  double product = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '^') continue;
    std::size_t j = i + 1;
    while (j < text.size() && (text[j] == ' ' || text[j] == '(' || text[j] == '-' || text[j] == '+')) ++j;
    double e = 0;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9' && e < 1e9) e = e * 10 + (text[j++] - '0');
    if (e > 1) product = std::min(1e18, product * e);
  }
  return product;
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
  // A constant's power is bounded (about 2^22 bits, store::bounded_constant_power), but the normal
  // form of a power of a sum multiplies such constants again, within the expansion budget's memory:
  // `(x + f*(-(5)^225)^221 - 7)^22` holds constants of 760,000 digits, whose printing and parsing
  // back take 35 s. Such powers are parsed (above) but not printed or decided, so that a fuzz run
  // stays fast.
  if (exponent_product(text) > 4096) return 0;
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
