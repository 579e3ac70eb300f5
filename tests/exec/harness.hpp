// Shared helpers of the execution-engine tests: a parsed-and-decoded kernel that owns its module
// (a program points into it, so the pair must not move apart), launches built in a line, one
// fixture per value domain that feeds the same exact input values to every domain, and an exact
// evaluator of symbolic results. The evaluator is deliberately independent of gpueq/canon: it
// is the oracle of the domain law (VOLTA Lemma 5), so it must not share code with what it checks.
#pragma once

#include <gpueq/exec.hpp>
#include <gpueq/ptx/parser.hpp>
#include <gpueq/support/rational.hpp>
#include <gpueq/term/store.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace exec_test {

namespace exec = gpueq::exec;
namespace term = gpueq::term;
using rat = gpueq::support::rational;

// The PTX header every inline kernel starts with.
inline constexpr std::string_view header = ".version 8.0\n.target sm_80\n.address_size 64\n";

// A kernel parsed and decoded once. Held by unique_ptr: the program points into the module.
struct kernel {
  gpueq::ptx::module module;
  exec::program program;
};
inline std::unique_ptr<kernel> load(std::string_view body, std::string file = "test.ptx") {
  auto k = std::make_unique<kernel>();
  k->module = gpueq::ptx::parse(std::string(header) + std::string(body), std::move(file));
  REQUIRE(!k->module.functions.empty());
  // The first kernel (device functions it calls may come before it), else the first function.
  const gpueq::ptx::function* f = &k->module.functions[0];
  for (auto it = k->module.functions.rbegin(); it != k->module.functions.rend(); ++it)
    if (it->entry) f = &*it;
  k->program = exec::decode(k->module, *f);
  return k;
}
inline std::unique_ptr<kernel> load_file(const std::string& path, std::string_view entry) {
  auto k = std::make_unique<kernel>();
  k->module = gpueq::ptx::parse_file(path);
  const gpueq::ptx::function* f = nullptr;
  for (const auto& fn : k->module.functions)
    if (k->module.str(fn.name) == entry) f = &fn;
  REQUIRE(f != nullptr);
  k->program = exec::decode(k->module, *f);
  return k;
}

// The 1-based line of the first line of `text` (header included) that contains `needle`, so tests
// can name the PTX line an error must point at without counting by hand.
inline std::uint32_t line_of(std::string_view body, std::string_view needle) {
  std::string text = std::string(header) + std::string(body);
  std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  std::uint32_t line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

// A corpus file: examples/kernels/<rel>.
inline std::string corpus_path(const std::string& rel) {
  return std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/" + rel;
}

// The 1-based lines of kernel `entry` in the PTX file at `path` that contain `needle`, in order.
inline std::vector<std::uint32_t> entry_lines_of(const std::string& path, std::string_view entry,
                                                 std::string_view needle) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  std::uint32_t n = 0;
  bool inside = false;
  std::vector<std::uint32_t> found;
  while (std::getline(in, line)) {
    ++n;
    if (line.find(".entry ") != std::string::npos)
      inside = line.find(".entry " + std::string(entry) + "(") != std::string::npos;
    if (inside && line.find(needle) != std::string::npos) found.push_back(n);
  }
  return found;
}

inline exec::tensor_binding tensor(std::string name, exec::rkind k, std::vector<std::uint64_t> shape, bool input,
                                   bool output, std::uint32_t element_bytes = 0) {
  exec::tensor_binding t;
  t.name = std::move(name);
  t.kind = k;
  t.element_bytes = element_bytes ? element_bytes : exec::bytes(k);
  t.shape = std::move(shape);
  t.input = input;
  t.output = output;
  return t;
}
inline exec::tensor_binding in_f32(std::string name, std::uint64_t n) {
  return tensor(std::move(name), exec::rkind::f32, {n}, true, false);
}
inline exec::tensor_binding out_f32(std::string name, std::uint64_t n) {
  return tensor(std::move(name), exec::rkind::f32, {n}, false, true);
}
// An output tensor of 32-bit (or 64-bit) integers: results of the integer ALU.
inline exec::tensor_binding out_int(std::string name, std::uint64_t n, std::uint32_t bytes = 4) {
  return tensor(std::move(name), exec::rkind::integer, {n}, false, true, bytes);
}

// A launch of one CTA of `threads` x 1 x 1 with the given tensors bound to parameters in order
// (then scalars, in order): the common shape of the inline kernels.
inline exec::launch one_cta(std::uint32_t threads, std::vector<exec::tensor_binding> tensors,
                            std::vector<exec::scalar_binding> scalars = {}) {
  exec::launch l;
  l.block = {threads, 1, 1};
  l.tensors = std::move(tensors);
  l.scalars = std::move(scalars);
  for (std::uint32_t i = 0; i < l.tensors.size(); ++i) l.params.push_back({true, i});
  for (std::uint32_t i = 0; i < l.scalars.size(); ++i) l.params.push_back({false, i});
  return l;
}

// Exact values of every input: tensor name and flat element (0 for scalars).
using values = std::function<rat(std::string_view, std::uint64_t)>;

// Random positive rationals p/q (no cancellation, so float32's relative error stays small) with
// a fixed seed per tensor name and element: every domain sees the same inputs.
inline values random_rationals(std::uint64_t seed) {
  return [seed](std::string_view name, std::uint64_t e) {
    std::uint64_t h = seed * 0x9e3779b97f4a7c15ull ^ std::hash<std::string_view>{}(name) ^ (e * 0xbf58476d1ce4e5b9ull);
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    auto p = static_cast<long long>(1 + h % 97), q = static_cast<long long>(1 + (h >> 20) % 13);
    return rat(p, q);
  };
}
// Small integers in [-8, 8]: exact in f16, f32 and every sum and product the kernels here form.
inline values small_integers(std::uint64_t seed) {
  return [seed](std::string_view name, std::uint64_t e) {
    std::uint64_t h = (seed + 1) * 0x9e3779b97f4a7c15ull ^ std::hash<std::string_view>{}(name) ^ (e * 0xbf58476d1ce4e5b9ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    return rat(static_cast<long long>(h % 17) - 8);
  };
}

inline std::uint64_t flat_index(std::span<const std::uint32_t> idx, const std::vector<std::uint64_t>& shape) {
  std::uint64_t e = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) e = e * shape.at(d) + idx[d];
  return e;
}

// The exact value of a symbolic result at the inputs: sums, products with integer exponents,
// max and min over rationals. Anything else is outside what these tests produce.
class exact_evaluator {
 public:
  exact_evaluator(const term::store& s, values v, std::map<std::string, std::vector<std::uint64_t>, std::less<>> shapes)
      : s_(s), v_(std::move(v)), shapes_(std::move(shapes)) {}
  rat operator()(term::term_id t) {
    if (auto it = memo_.find(t); it != memo_.end()) return it->second;
    rat r = compute(t);
    memo_.emplace(t, r);
    return r;
  }

 private:
  rat compute(term::term_id t) {
    switch (s_.kind_of(t)) {
      case term::kind::constant: return s_.value_of(t);
      case term::kind::input: {
        std::string_view name = s_.tensor_name(t);
        auto idx = s_.input_indices(t);
        auto it = shapes_.find(name);
        return v_(name, idx.empty() || it == shapes_.end() ? 0 : flat_index(idx, it->second));
      }
      case term::kind::add: {
        rat r = s_.sum_constant(t);
        for (auto e : s_.sum_entries(t)) r += s_.constant_value(e.coefficient) * (*this)(e.term);
        return r;
      }
      case term::kind::mul: {
        rat r = s_.product_coefficient(t);
        for (auto f : s_.product_entries(t)) r *= gpueq::support::pow_int((*this)(f.base), f.exponent);
        return r;
      }
      case term::kind::dot: {
        rat r = 0;
        for (auto e : s_.dot_entries(t)) r += s_.constant_value(e.coefficient) * (*this)(e.x) * (*this)(e.y);
        return r;
      }
      case term::kind::max:
      case term::kind::min: {
        auto args = s_.args(t);
        rat r = (*this)(args[0]);
        for (auto a : args.subspan(1)) {
          rat x = (*this)(a);
          if (s_.kind_of(t) == term::kind::max ? x > r : x < r) r = x;
        }
        return r;
      }
      default: throw std::logic_error("exact_evaluator: a term kind these tests do not expect");
    }
  }
  const term::store& s_;
  values v_;
  std::map<std::string, std::vector<std::uint64_t>, std::less<>> shapes_;
  std::unordered_map<term::term_id, rat> memo_;
};

inline std::map<std::string, std::vector<std::uint64_t>, std::less<>> shapes_of(const exec::launch& l) {
  std::map<std::string, std::vector<std::uint64_t>, std::less<>> m;
  for (auto& t : l.tensors) m[t.name] = t.shape;
  return m;
}

// One fixture per domain: the domain, fed from `values`, and the value of a result as an exact
// rational (float32 results are doubles, which are rationals; symbolic ones are evaluated).
template <class D>
struct fixture;

template <>
struct fixture<exec::float32_domain> {
  static constexpr const char* name = "float32";
  explicit fixture(values v)
      : v_(std::move(v)), d([this](const exec::input_ref& in) {
          double x = v_(in.name, in.element).convert_to<double>();
          return in.kind == exec::rkind::integer ? x : exec::floats::round_to(x, in.kind);
        }) {}
  rat at(double r, const exec::launch&) { return rat(r); }
  values v_;
  exec::float32_domain d;
};

template <>
struct fixture<exec::exact_domain> {
  static constexpr const char* name = "exact";
  explicit fixture(values v) : v_(std::move(v)), d([this](const exec::input_ref& in) { return v_(in.name, in.element); }) {}
  rat at(const rat& r, const exec::launch&) { return r; }
  values v_;
  exec::exact_domain d;
};

template <>
struct fixture<exec::symbolic_domain> {
  static constexpr const char* name = "symbolic";
  explicit fixture(values v) : v_(std::move(v)), d(s) {}
  rat at(term::term_id r, const exec::launch& l) {
    if (!eval_) eval_.emplace(s, v_, shapes_of(l));
    return (*eval_)(r);
  }
  values v_;
  term::store s;
  exec::symbolic_domain d;
  std::optional<exact_evaluator> eval_;
};

// The outcome of one run: the error, or every output element (nullopt: never written), read the
// way check/ reads them (engine::output_value: integer tensors with their width and sign).
template <class D>
struct outcome {
  std::optional<exec::run_error> error;
  std::map<std::string, std::vector<std::optional<typename D::result>>> out;
  exec::run_stats stats;
};

template <class D, class O = exec::null_observer>
outcome<D> run(const kernel& k, const exec::launch& l, D& d, O* o = nullptr, exec::engine_options options = {}) {
  outcome<D> r;
  O none{};
  exec::engine<D, O> e(k.program, l, d, o ? *o : none, std::move(options));
  r.error = e.run();
  r.stats = e.stats();
  if (r.error) return r;
  try {  // reading an element may fail (check::run_cta makes that the run's error too)
    for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
      const auto& t = l.tensors[ti];
      if (!t.output) continue;
      auto& v = r.out[t.name];
      for (std::uint64_t i = 0; i < t.elements(); ++i) {
        auto c = e.output(ti, i);
        v.push_back(c ? std::optional(e.output_value(ti, *c)) : std::nullopt);
      }
    }
  } catch (const exec::run_failure& f) {
    r.error = f.error;
    r.out.clear();
  }
  return r;
}

// The raw output cells (integer results are read as bits).
template <class D>
std::vector<std::optional<exec::cell<typename D::real>>> cells(const kernel& k, const exec::launch& l, D& d,
                                                               std::uint32_t tensor,
                                                               std::optional<exec::run_error>* error = nullptr) {
  exec::null_observer none;
  exec::engine<D> e(k.program, l, d, none);
  auto err = e.run();
  if (error) *error = err;
  std::vector<std::optional<exec::cell<typename D::real>>> v;
  if (err) {
    FAIL_CHECK("run failed: " << err->message);
    return v;
  }
  for (std::uint64_t i = 0; i < l.tensors[tensor].elements(); ++i) v.push_back(e.output(tensor, i));
  return v;
}

// Runs expecting an error; returns it (or a default-constructed one after a failed check).
template <class D>
exec::run_error expect_error(const kernel& k, const exec::launch& l, D& d, exec::engine_options options = {}) {
  auto r = run<D>(k, l, d, static_cast<exec::null_observer*>(nullptr), std::move(options));
  REQUIRE_MESSAGE(r.error.has_value(), "the run completed but an error was expected");
  return *r.error;
}

inline bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

}  // namespace exec_test
