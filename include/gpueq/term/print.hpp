// Printing terms as readable infix text in the term syntax that gpueq/term/parse.hpp reads back:
//   2*x[0]*y - exp(x[1] - max(x[0], x[1]))/(a + b) + 1/3
// The printer is iterative (an explicit stack), so million-deep accumulation chains print
// without overflowing the call stack, and it can truncate long output for reports.
#pragma once

#include <gpueq/term/store.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>

#include <cstddef>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace gpueq::term {

struct print_options {
  // Stop after roughly this many characters and end with "…" (reports); unlimited by default.
  std::size_t max_chars = std::numeric_limits<std::size_t>::max();
  // Subterms printed as a name instead of their structure (let-bound names; see to_shared_text).
  const boost::unordered_flat_map<term_id, std::string>* names = nullptr;
};

namespace detail {

// Binding strength of the printed form of a term: a context of higher precedence than the
// term's own needs parentheses around it.
enum class prec : int { sum = 1, product = 2, unary = 3, power = 4, atom = 5 };

inline prec precedence_of(const store& s, term_id t) {
  const node& n = s.at(t);
  switch (n.k) {
    case kind::constant: {
      const rational& v = s.constant_value(n.payload);
      if (v < 0) return prec::unary;
      return support::is_integer(v) || support::to_string(v).find('/') == std::string::npos ? prec::atom
                                                                                            : prec::product;
    }
    case kind::neg_inf: return prec::unary;
    case kind::add:
    case kind::dot: return prec::sum;
    case kind::mul: {
      auto f = s.product_entries(t);
      const rational& c = s.product_coefficient(t);
      if (c < 0) return prec::unary;
      if (c == 1 && f.size() == 1 && f[0].exponent > 1) return prec::power;
      return prec::product;
    }
    default: return prec::atom;
  }
}

}  // namespace detail

class printer {
 public:
  explicit printer(const store& s, print_options options = {}) : s_(s), options_(options) {}

  std::string operator()(term_id root) {
    out_.clear();
    stack_.clear();
    root_ = root;
    push_term(root, detail::prec::sum);
    while (!stack_.empty()) {
      if (out_.size() > options_.max_chars) {
        out_ += "…";
        break;
      }
      task t = std::move(stack_.back());
      stack_.pop_back();
      if (t.text) {
        out_ += t.text;
      } else if (!t.literal.empty()) {
        out_ += t.literal;
      } else {
        expand(t.term);
      }
    }
    return std::move(out_);
  }

 private:
  struct task {
    term_id term = no_term;
    const char* text = nullptr;  // a static string
    std::string literal;         // or an owned one
  };

  // Tasks are pushed in reverse so the stack pops them in order; `emit` collects a node's
  // pieces in order and pushes them reversed.
  std::vector<task> pieces_;
  void piece(const char* text) { pieces_.push_back(task{no_term, text, {}}); }
  void piece(std::string text) { pieces_.push_back(task{no_term, nullptr, std::move(text)}); }
  void piece_term(term_id t, detail::prec context) {
    if (options_.names && t != root_) {
      if (auto it = options_.names->find(t); it != options_.names->end()) {
        piece(it->second);
        return;
      }
    }
    if (detail::precedence_of(s_, t) < context) {
      piece("(");
      pieces_.push_back(task{t, nullptr, {}});
      piece(")");
    } else {
      pieces_.push_back(task{t, nullptr, {}});
    }
  }
  void push_term(term_id t, detail::prec context) {
    pieces_.clear();
    piece_term(t, context);
    flush();
  }
  void flush() {
    for (auto it = pieces_.rbegin(); it != pieces_.rend(); ++it) stack_.push_back(std::move(*it));
    pieces_.clear();
  }

  // The factors c · Π bᵢ^eᵢ as "c*a*b^2/(d*e)".
  void product_pieces(const rational& c_in, std::span<const product_entry> f) {
    rational c = c_in;
    if (c < 0) {
      piece("-");
      c = -c;
    }
    std::vector<product_entry> num, den;
    for (auto e : f) (e.exponent > 0 ? num : den).push_back(e);
    bool first = true;
    auto power = [&](product_entry e, int sign) {
      int ex = e.exponent * sign;
      // A product nested in a product is a chunk too long to flatten: parenthesize it so the
      // text parses back to the same chunk.
      bool chunk = s_.kind_of(e.base) == kind::mul;
      piece_term(e.base, ex == 1 && !chunk ? detail::prec::product : detail::prec::atom);
      if (ex != 1) {
        std::string text = std::to_string(ex);  // (not "^" + …: GCC 12 warns falsely, -Wrestrict)
        text.insert(text.begin(), '^');
        piece(std::move(text));
      }
    };
    const bool show_c = c != 1 || num.empty();
    if (show_c) {
      piece(support::to_string(c));
      first = false;
    }
    for (auto e : num) {
      if (!first) piece("*");
      power(e, 1);
      first = false;
    }
    if (!den.empty()) {
      piece("/");
      if (den.size() > 1) piece("(");
      bool dfirst = true;
      for (auto e : den) {
        if (!dfirst) piece("*");
        if (den.size() == 1 && e.exponent == -1) {
          piece_term(e.base, detail::prec::atom);
        } else {
          power(e, -1);
        }
        dfirst = false;
      }
      if (den.size() > 1) piece(")");
    }
  }

  void expand(term_id t) {
    const node& n = s_.at(t);
    pieces_.clear();
    switch (n.k) {
      case kind::constant: piece(support::to_string(s_.constant_value(n.payload))); break;
      case kind::neg_inf: piece("-inf"); break;
      case kind::pos_inf: piece("inf"); break;
      case kind::input: {
        std::string name(s_.tensor_name(t));
        for (auto i : s_.input_indices(t)) name += "[" + std::to_string(i) + "]";
        piece(std::move(name));
        break;
      }
      case kind::add: {
        bool first = true;
        for (auto e : s_.sum_entries(t)) {
          rational c = s_.constant_value(e.coefficient);
          bool negative = c < 0;
          if (!first) piece(negative ? " - " : " + ");
          else if (negative) piece("-");
          if (negative) c = -c;
          const node& m = s_.at(e.term);
          if (m.k == kind::mul) {
            product_pieces(c, s_.product_entries(e.term));
          } else if (c == 1) {
            // A sum nested in a sum is an unflattened chunk: keep its parentheses.
            piece_term(e.term, m.k == kind::add ? detail::prec::product : detail::prec::sum);
          } else {
            piece(support::to_string(c));
            piece("*");
            piece_term(e.term, detail::prec::product);
          }
          first = false;
        }
        const rational& c0 = s_.sum_constant(t);
        if (c0 != 0) {
          piece(c0 < 0 ? " - " : " + ");
          piece(support::to_string(c0 < 0 ? rational(-c0) : c0));
        }
        break;
      }
      case kind::mul: product_pieces(s_.product_coefficient(t), s_.product_entries(t)); break;
      case kind::dot: {
        // Entries are kept in id order; print them in the order an add of the same products has
        // (by the products' hashes), so the text is the materialized sum's, whatever order the
        // store made its inputs in.
        auto es = s_.dot_entries(t);
        std::vector<std::pair<std::uint64_t, dot_entry>> sorted;
        for (const dot_entry& e : es) sorted.push_back({s_.product_hash(e.x, e.y), e});
        std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        bool first = true;
        for (const auto& [h, e] : sorted) {
          rational c = s_.constant_value(e.coefficient);
          bool negative = c < 0;
          if (!first) piece(negative ? " - " : " + ");
          else if (negative) piece("-");
          if (negative) c = -c;
          product_entry f[2] = {{e.x, 1}, {e.y, 1}};  // as the product x·y would print
          if (e.x == e.y) f[0].exponent = 2;
          else if (s_.before(e.y, e.x)) std::swap(f[0], f[1]);
          product_pieces(c, std::span<const product_entry>(f, e.x == e.y ? 1 : 2));
          first = false;
        }
        break;
      }
      case kind::exp:
      case kind::log:
      case kind::sqrt:
      case kind::max:
      case kind::min:
      case kind::apply: {
        const char* name = n.k == kind::exp    ? "exp"
                           : n.k == kind::log  ? "log"
                           : n.k == kind::sqrt ? "sqrt"
                           : n.k == kind::max  ? "max"
                           : n.k == kind::min  ? "min"
                                               : nullptr;
        if (name) piece(name);
        else piece(std::string(name_of(s_.function_of(t))));
        piece("(");
        bool first = true;
        for (term_id a : s_.args(t)) {
          if (!first) piece(", ");
          piece_term(a, detail::prec::sum);
          first = false;
        }
        piece(")");
        break;
      }
    }
    flush();
  }

  const store& s_;
  print_options options_;
  term_id root_ = no_term;
  std::string out_;
  std::vector<task> stack_;
};

inline std::string to_string(const store& s, term_id t, print_options options = {}) {
  return printer(s, options)(t);
}

// Terms as text with their sharing kept: every subterm that is not a monomial and is used more
// than once (by the roots together) is bound once, `let _tN = …`, before its first use, and named
// after that. The printed form of a DAG can be exponentially larger than the DAG; this one is
// linear in it. parse_let on each line of `lets`, then parse on each root text with the same
// let_table, gives back the same terms.
struct shared_text {
  std::vector<std::string> lets;   // "let _t1 = …" lines, in dependency order
  std::vector<std::string> roots;  // one text per root
};

inline shared_text to_shared_text(const store& s, std::span<const term_id> roots) {
  // The children the printer visits: entries of sums and products, arguments of applications.
  auto children = [&](term_id t, auto&& visit) {
    for (std::size_t i = 0, n = s.child_count(t); i < n; ++i) visit(s.child(t, i));
  };
  // Reference counts and a post-order (children first), iteratively.
  boost::unordered_flat_map<term_id, std::uint32_t> refs;
  std::vector<term_id> order;
  std::vector<std::pair<term_id, bool>> stack;
  for (term_id r : roots) {
    if (refs[r]++ == 0) stack.push_back({r, false});
    while (!stack.empty()) {
      auto [t, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        order.push_back(t);
        continue;
      }
      stack.push_back({t, true});
      children(t, [&](term_id c) {
        if (refs[c]++ == 0) stack.push_back({c, false});
      });
    }
  }
  // Names that cannot collide with an input: _t1, _t2, … (more underscores if a tensor is so named).
  std::string prefix = "_t";
  for (std::uint32_t i = 0; i < s.tensor_count(); ++i)
    while (s.tensor_name_at(i).substr(0, prefix.size()) == prefix) prefix.insert(prefix.begin(), '_');
  boost::unordered_flat_map<term_id, std::string> names;
  shared_text out;
  print_options options;
  options.names = &names;
  printer p(s, options);
  for (term_id t : order) {
    if (refs[t] < 2 || s.is_monomial(t) || s.is_infinite(t)) continue;
    std::string name = prefix + std::to_string(names.size() + 1);
    out.lets.push_back("let " + name + " = " + p(t));
    names.emplace(t, std::move(name));
  }
  for (term_id r : roots) {
    auto it = names.find(r);
    out.roots.push_back(it != names.end() ? it->second : p(r));
  }
  return out;
}

}  // namespace gpueq::term
