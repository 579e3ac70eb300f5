// Given contents of a tensor (a spec's `"contents"`, issue 21 item 17): the values the host put in
// a tensor before the launch, the same for both kernels. Such a tensor holds concrete bits from
// the start in every domain (exec::given_contents), so an index loaded from it is a concrete
// integer and the addresses and branches computed from it stay concrete: gathers and scatters
// through index tensors, embedding lookups, MoE routing tables, paged-attention block tables, and
// buffers the host initializes (an attention kernel's O = 0, l = 0, m = −∞). The verdict then
// holds for these values only, and the report says so.
//
// The forms, exactly (element i counts row-major from 0; n is the tensor's element count):
//   zeros        every element 0 (+0.0 for floats)
//   constant v   every element v: an integer of the dtype's range for integer tensors; for float
//                tensors a number rounded to the nearest value of the format (ties to even), or
//                ±infinity ("inf", "-inf")
//   iota         start + step·i (64-bit integers)
//   random_int   min + z_i mod (max − min + 1), both bounds included, where z_i is output i of
//                splitmix64 seeded with `seed` (below)
//   permutation  a permutation of 0..n−1: a = [0, 1, ..., n−1]; for k = 0, 1, ..., n−2, with
//                i = n−1−k and j = z_k mod (i + 1), swap a[i] and a[j] (Fisher–Yates, from the
//                last element down, output k of splitmix64 seeded with `seed` for the k-th swap)
//   values       the elements of a .npy file, of exactly the tensor's dtype and shape
// splitmix64 (Steele, Lea and Flood, 2014; Vigna's splitmix64.c): the state starts at `seed` and
// advances by γ = 0x9e3779b97f4a7c15 (mod 2⁶⁴) before each output z = mix(state), with
//   mix(x): x ^= x >> 30; x *= 0xbf58476d1ce4e5b9; x ^= x >> 27; x *= 0x94d049bb133111eb; x ^= x >> 31
// (all mod 2⁶⁴), so z_i = mix(seed + (i + 1)·γ). Seeded with 1234567 its first outputs are
// 6457827717110365317, 3203168211198807973, 9817491932198370423. Nothing here uses the standard
// library's distributions, whose outputs differ between implementations: the values are the same
// on every platform, and a few lines of Python reproduce them (examples/kernels/README.md).
//
// Every generated value must be exact in the tensor's dtype: an integer within the type's range
// (u64 values up to 2⁶³ − 1, as the bounds are 64-bit signed integers), or for a float tensor an
// integer of magnitude at most 2^precision (2¹¹ f16, 2⁸ bf16, 2²⁴ f32, 2⁵³ f64), which the format
// holds exactly. A permutation has at most 2²⁴ elements (it is built whole). A .npy file's floats
// must not be NaN (the symbolic domain has no NaN), and a bf16, e4m3 or e5m2 tensor's file holds
// float32 values (numpy has none of these types) that must each be a value of the tensor's type.
#pragma once

#include <gpueq/check/dtype.hpp>
#include <gpueq/check/npy.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/exec/launch.hpp>
#include <gpueq/support/diagnostics.hpp>
#include <gpueq/support/hash.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpueq::check {

// One tensor's given contents (the forms above). pair_spec::contents holds them by tensor name.
struct contents_spec {
  enum class form : std::uint8_t { zeros, constant, iota, random_int, permutation, values };
  form kind = form::zeros;
  double constant = 0;               // constant: a number, or ±infinity (float dtypes)
  std::int64_t start = 0, step = 1;  // iota
  std::int64_t min = 0, max = 0;     // random_int: [min, max], both included
  std::uint64_t seed = 0;            // random_int, permutation
  std::string file;                  // values from a .npy file: the file as the spec names it
  // values: element i's bits as memory holds them (row-major), one per element.
  std::shared_ptr<const std::vector<std::uint64_t>> values;
};

// ---- The generator ------------------------------------------------------------------------------

// Output i (from 0) of splitmix64 seeded with `seed`: mix(seed + (i + 1)·γ). support::mix64 is
// splitmix64's step (it adds γ, then mixes), hence seed + i·γ.
inline std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t i) {
  return support::mix64(seed + i * 0x9e3779b97f4a7c15ull);
}

// Element i of random_int [min, max] (min <= max) with `seed`.
inline std::int64_t random_int(std::int64_t min, std::int64_t max, std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t span = static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min) + 1;  // 0: all 2^64 values
  const std::uint64_t z = splitmix64(seed, i);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(min) + (span ? z % span : z));
}

// The most elements a permutation may have (it is built whole, 4 bytes an element).
inline constexpr std::uint64_t max_permutation = std::uint64_t{1} << 24;

// The permutation of 0..n−1 (n <= max_permutation) with `seed`.
inline std::vector<std::uint32_t> permutation(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> a(n);
  for (std::uint64_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(i);
  for (std::uint64_t k = 0; k + 1 < n; ++k) {
    const std::uint64_t i = n - 1 - k, j = splitmix64(seed, k) % (i + 1);
    std::swap(a[i], a[j]);
  }
  return a;
}

// ---- Values, bits and checks --------------------------------------------------------------------

namespace detail {

inline std::string number_text(double v) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// The integers a dtype holds exactly, as [lo, hi] (integer types: their range, u64 cut at
// 2^63 − 1; float types: the integers of magnitude at most 2^precision).
struct integer_range {
  std::int64_t lo, hi;
};
inline integer_range exact_integers(dtype d) {
  if (is_float(d)) {
    std::int64_t top = std::int64_t{1} << exec::floats::format_of(rkind_of(d)).precision;
    return {-top, top};
  }
  const unsigned bits = 8 * bytes(d);
  if (bits == 64) return {is_signed(d) ? INT64_MIN : 0, INT64_MAX};
  if (is_signed(d)) return {-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
  return {0, (std::int64_t{1} << bits) - 1};
}

inline std::string range_problem(std::int64_t v, dtype d, const std::string& what) {
  integer_range r = exact_integers(d);
  if (v >= r.lo && v <= r.hi) return "";
  return what + " " + std::to_string(v) + " is outside the integers " + std::string(name(d)) + " holds exactly (" +
         std::to_string(r.lo) + " to " + std::to_string(r.hi) + ")";
}

}  // namespace detail

// The bits of integer v (exact in d: detail::exact_integers) as an element of type d.
inline std::uint64_t element_bits(std::int64_t v, dtype d) {
  if (is_float(d)) return exec::floats::encode(static_cast<double>(v), rkind_of(d));
  const unsigned bits = 8 * bytes(d);
  const std::uint64_t b = static_cast<std::uint64_t>(v);
  return bits == 64 ? b : b & ((std::uint64_t{1} << bits) - 1);
}

// The value of an element of type d with these bits (a float's, or the integer's).
inline double element_value(std::uint64_t bits, dtype d) {
  if (is_float(d)) return exec::floats::decode(bits, rkind_of(d));
  const std::int64_t v = exec::integer_of_bits(bits, bytes(d), is_signed(d));
  return is_signed(d) ? static_cast<double>(v) : static_cast<double>(static_cast<std::uint64_t>(v));
}

// Why contents c cannot be those of a tensor of type d with n elements ("" when they can).
inline std::string contents_problem(const contents_spec& c, dtype d, std::uint64_t n) {
  using f = contents_spec::form;
  switch (c.kind) {
    case f::zeros: return "";
    case f::constant:
      if (std::isnan(c.constant)) return "NaN has no real value";
      if (is_float(d)) {
        if (std::isfinite(c.constant) && !std::isfinite(exec::floats::round_to(c.constant, rkind_of(d))))
          return detail::number_text(c.constant) + " is outside the range of " + std::string(name(d));
        return "";
      }
      if (c.constant != std::floor(c.constant) || std::fabs(c.constant) >= 0x1p63)
        return detail::number_text(c.constant) + " is not an integer of the tensor's type " + std::string(name(d));
      return detail::range_problem(static_cast<std::int64_t>(c.constant), d, "the constant");
    case f::iota: {
      std::int64_t span = 0, last = 0;
      if (n - 1 > static_cast<std::uint64_t>(INT64_MAX) || __builtin_mul_overflow(c.step, static_cast<std::int64_t>(n - 1), &span) ||
          __builtin_add_overflow(c.start, span, &last))
        return "its last value, start + step*(n-1), overflows 64 bits";
      if (auto why = detail::range_problem(c.start, d, "its first value"); !why.empty()) return why;
      return detail::range_problem(last, d, "its last value (element " + std::to_string(n - 1) + ")");
    }
    case f::random_int:
      if (c.min > c.max) return "min " + std::to_string(c.min) + " is above max " + std::to_string(c.max);
      if (auto why = detail::range_problem(c.min, d, "min"); !why.empty()) return why;
      return detail::range_problem(c.max, d, "max");
    case f::permutation:
      if (n > max_permutation)
        return "a permutation of " + std::to_string(n) + " elements is more than gpueq builds (at most 2^24)";
      return detail::range_problem(static_cast<std::int64_t>(n - 1), d, "its largest value");
    case f::values:
      if (!c.values || c.values->size() != n)
        return "holds " + std::to_string(c.values ? c.values->size() : 0) + " values for a tensor of " + std::to_string(n);
      if (is_float(d))
        for (std::uint64_t i = 0; i < n; ++i)
          if (std::isnan(element_value((*c.values)[i], d)))
            return "element " + std::to_string(i) + " is NaN, which has no real value";
      return "";
  }
  return "";
}

// How reports describe the contents ("random integers in [0, 31], seed 5").
inline std::string describe(const contents_spec& c, std::uint64_t n) {
  using f = contents_spec::form;
  switch (c.kind) {
    case f::zeros: return "zeros";
    case f::constant: return "constant " + detail::number_text(c.constant);
    case f::iota: return "iota " + std::to_string(c.start) + " + " + std::to_string(c.step) + "*i";
    case f::random_int:
      return "random integers in [" + std::to_string(c.min) + ", " + std::to_string(c.max) + "], seed " + std::to_string(c.seed);
    case f::permutation: return "a permutation of 0.." + std::to_string(n - 1) + ", seed " + std::to_string(c.seed);
    case f::values: return c.file.empty() ? "given values" : "values from " + c.file;
  }
  return "";
}

// The engine's view of contents c of a tensor of type d with n elements (contents_problem(c, d, n)
// is ""): each element's bits, computed when the engine first reads it (a permutation is built
// once, here).
inline std::shared_ptr<const exec::given_contents> given_contents_of(const contents_spec& c, dtype d, std::uint64_t n) {
  using f = contents_spec::form;
  auto g = std::make_shared<exec::given_contents>();
  switch (c.kind) {
    case f::zeros: g->bits = [](std::uint64_t) { return std::uint64_t{0}; }; break;
    case f::constant: {
      std::uint64_t b = is_float(d) ? exec::floats::encode(exec::floats::round_to(c.constant, rkind_of(d)), rkind_of(d))
                                    : element_bits(static_cast<std::int64_t>(c.constant), d);
      g->bits = [b](std::uint64_t) { return b; };
      break;
    }
    case f::iota:
      g->bits = [start = c.start, step = c.step, d](std::uint64_t i) {
        return element_bits(static_cast<std::int64_t>(static_cast<std::uint64_t>(start) + static_cast<std::uint64_t>(step) * i), d);
      };
      break;
    case f::random_int:
      g->bits = [min = c.min, max = c.max, seed = c.seed, d](std::uint64_t i) { return element_bits(random_int(min, max, seed, i), d); };
      break;
    case f::permutation: {
      auto p = std::make_shared<const std::vector<std::uint32_t>>(permutation(n, c.seed));
      g->bits = [p, d](std::uint64_t i) { return element_bits((*p)[i], d); };
      break;
    }
    case f::values: g->bits = [v = c.values](std::uint64_t i) { return (*v)[i]; }; break;
  }
  return g;
}

// Contents read from the .npy file at `path` (named `file` in the spec) for a tensor of type d and
// this shape: the file's dtype and shape must be the tensor's exactly (check::npy::read_bits); a
// bf16 tensor's file holds float32 values, each of which must be a bf16 value. Throws
// support::diagnostic_error naming the .npy file (the spec reader names the spec file instead,
// with the .npy file in the reason).
inline contents_spec contents_from_npy(const std::string& path, const std::string& file, dtype d,
                                       const std::vector<std::uint64_t>& shape, const std::string& what) {
  npy::bits_array a = npy::read_bits(path, d, shape, what);
  if (is_fp8(d))
    for (std::uint64_t i = 0; i < a.bits.size(); ++i) {
      const double v = exec::floats::decode(a.bits[i] & 0xffffffffu, exec::rkind::f32);
      const exec::rkind k = rkind_of(d);
      if (std::isnan(v) || (std::isinf(v) ? k == exec::rkind::e4m3 : exec::floats::round_to(v, k) != v))
        throw support::diagnostic_error({path, {}, "element " + std::to_string(i) + " (" + detail::number_text(v) +
                                                       ") is not an " + std::string(name(d)) +
                                                       " value, which the spec's " + what + " holds"});
      a.bits[i] = exec::floats::encode(v, k);
    }
  if (d == dtype::bf16)
    for (std::uint64_t i = 0; i < a.bits.size(); ++i) {
      const std::uint64_t b = a.bits[i] & 0xffffffffu;
      if (b & 0xffff)
        throw support::diagnostic_error({path, {}, "element " + std::to_string(i) + " (" +
                                                       detail::number_text(exec::floats::decode(b, exec::rkind::f32)) +
                                                       ") is not a bf16 value, which the spec's " + what + " holds"});
      a.bits[i] = b >> 16;
    }
  contents_spec c;
  c.kind = contents_spec::form::values;
  c.file = file;
  c.values = std::make_shared<const std::vector<std::uint64_t>>(std::move(a.bits));
  return c;
}

}  // namespace gpueq::check
