// An exact rational with an allocation-free fast path: numerator and denominator in 64 bits while
// they fit, an arbitrary-precision `rational` (GMP) otherwise. Normal forms hold millions of
// coefficients that are almost all small integers (1, -1, 2, 1/2): with a GMP rational each
// copy is a heap allocation, which dominated the decision procedure's profile.
//
// Representation is canonical (a value that fits is always small; small values are reduced with
// a positive denominator), so equality and hashing work on the representation.
#pragma once

#include <gpueq/support/hash.hpp>
#include <gpueq/support/rational.hpp>

#include <algorithm>
#include <bit>
#include <compare>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

namespace gpueq::support {

class small_rational {
 public:
  small_rational() = default;
  small_rational(std::int64_t n) : n_(n) {}  // NOLINT: implicit, like an integer literal
  small_rational(const rational& r) { assign(r); }  // NOLINT: implicit from the store's constants
  small_rational(const small_rational& o) : n_(o.n_), d_(o.d_), big_(o.big_ ? std::make_unique<rational>(*o.big_) : nullptr) {}
  small_rational(small_rational&&) noexcept = default;
  small_rational& operator=(const small_rational& o) {
    if (this != &o) {
      n_ = o.n_;
      d_ = o.d_;
      big_ = o.big_ ? std::make_unique<rational>(*o.big_) : nullptr;
    }
    return *this;
  }
  small_rational& operator=(small_rational&&) noexcept = default;

  bool is_small() const { return !big_; }
  // Bits of numerator and denominator (support::bit_size), for size estimates.
  std::uint64_t bits() const {
    if (big_) return bit_size(*big_);
    return static_cast<std::uint64_t>(std::bit_width(magnitude(n_)) + std::bit_width(static_cast<std::uint64_t>(d_)));
  }
  rational to_rational() const { return big_ ? *big_ : rational(n_, d_); }

  friend bool operator==(const small_rational& a, const small_rational& b) {
    if (a.big_ || b.big_) return a.big_ && b.big_ && *a.big_ == *b.big_;  // canonical: small ≠ big
    return a.n_ == b.n_ && a.d_ == b.d_;
  }
  friend bool operator==(const small_rational& a, std::int64_t b) { return !a.big_ && a.d_ == 1 && a.n_ == b; }
  friend std::strong_ordering operator<=>(const small_rational& a, const small_rational& b) {
    if (!a.big_ && !b.big_) {
      // a.n/a.d vs b.n/b.d with positive denominators: compare a.n·b.d with b.n·a.d exactly.
      i128 l = static_cast<i128>(a.n_) * b.d_, r = static_cast<i128>(b.n_) * a.d_;
      return l < r ? std::strong_ordering::less : l > r ? std::strong_ordering::greater : std::strong_ordering::equal;
    }
    rational x = a.to_rational(), y = b.to_rational();
    return x < y ? std::strong_ordering::less : x > y ? std::strong_ordering::greater : std::strong_ordering::equal;
  }
  friend std::strong_ordering operator<=>(const small_rational& a, std::int64_t b) { return a <=> small_rational(b); }

  int sign() const { return big_ ? (*big_ > 0) - (*big_ < 0) : (n_ > 0) - (n_ < 0); }

  small_rational operator-() const {
    if (!big_ && n_ != std::numeric_limits<std::int64_t>::min()) return small_rational(-n_, d_, raw{});
    return small_rational(rational(-to_rational()));
  }
  small_rational& operator+=(const small_rational& o) {
    if (!big_ && !o.big_) {
      if (d_ == 1 && o.d_ == 1) {
        std::int64_t s;
        if (!__builtin_add_overflow(n_, o.n_, &s)) {
          n_ = s;
          return *this;
        }
      } else if (d_ == o.d_) {  // a common denominator (coefficients of one scale): 64-bit work only
        std::int64_t s;
        if (!__builtin_add_overflow(n_, o.n_, &s)) {
          auto g = static_cast<std::int64_t>(gcd64(magnitude(s), static_cast<std::uint64_t>(d_)));
          n_ = s / g;
          d_ /= g;
          return *this;
        }
      }
      if (set_reduced(static_cast<i128>(n_) * o.d_ + static_cast<i128>(o.n_) * d_, static_cast<i128>(d_) * o.d_))
        return *this;
    }
    assign(to_rational() + o.to_rational());
    return *this;
  }
  small_rational& operator-=(const small_rational& o) { return *this += -o; }
  small_rational& operator*=(const small_rational& o) {
    if (!big_ && !o.big_) {
      if (d_ == 1 && o.d_ == 1) {
        std::int64_t p;
        if (!__builtin_mul_overflow(n_, o.n_, &p)) {
          n_ = p;
          return *this;
        }
      }
      if (n_ == 0 || o.n_ == 0) {
        n_ = 0, d_ = 1;
        return *this;
      }
      // Both reduced: cancelling each numerator against the other denominator leaves a reduced
      // product, with 64-bit gcds (the 128-bit path's divisions showed in the profile).
      auto g1 = static_cast<std::int64_t>(gcd64(magnitude(n_), static_cast<std::uint64_t>(o.d_)));
      auto g2 = static_cast<std::int64_t>(gcd64(magnitude(o.n_), static_cast<std::uint64_t>(d_)));
      std::int64_t n, d;
      if (!__builtin_mul_overflow(n_ / g1, o.n_ / g2, &n) && !__builtin_mul_overflow(d_ / g2, o.d_ / g1, &d)) {
        n_ = n, d_ = d;
        return *this;
      }
      if (set_reduced(static_cast<i128>(n_) * o.n_, static_cast<i128>(d_) * o.d_)) return *this;
    }
    assign(to_rational() * o.to_rational());
    return *this;
  }
  small_rational& operator/=(const small_rational& o) {
    if (o.sign() == 0) throw std::domain_error("rational division by zero");
    if (!big_ && !o.big_ && set_reduced(static_cast<i128>(n_) * o.d_, static_cast<i128>(d_) * o.n_)) return *this;
    assign(to_rational() / o.to_rational());
    return *this;
  }
  friend small_rational operator+(small_rational a, const small_rational& b) { return a += b; }
  friend small_rational operator-(small_rational a, const small_rational& b) { return a -= b; }
  friend small_rational operator*(small_rational a, const small_rational& b) { return a *= b; }
  friend small_rational operator/(small_rational a, const small_rational& b) { return a /= b; }

  std::uint64_t hash() const {
    if (big_) return hash_rational(*big_);
    return hash_combine(mix64(static_cast<std::uint64_t>(n_)), static_cast<std::uint64_t>(d_));
  }

 private:
  __extension__ using i128 = __int128;
  __extension__ using u128 = unsigned __int128;
  struct raw {};
  small_rational(std::int64_t n, std::int64_t d, raw) : n_(n), d_(d) {}

  static std::uint64_t magnitude(std::int64_t v) {
    return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  }
  // Binary gcd; gcd(0, b) = b.
  static std::uint64_t gcd64(std::uint64_t a, std::uint64_t b) {
    if (a == 0) return b;
    if (b == 0) return a;
    // A power of two (the denominator of a float constant, 1/256): the gcd is the smaller power
    // of two dividing both, without the loop.
    if ((a & (a - 1)) == 0 || (b & (b - 1)) == 0) return std::uint64_t{1} << std::min(__builtin_ctzll(a), __builtin_ctzll(b));
    int shift = __builtin_ctzll(a | b);
    a >>= __builtin_ctzll(a);
    do {
      b >>= __builtin_ctzll(b);
      if (a > b) std::swap(a, b);
      b -= a;
    } while (b != 0);
    return a << shift;
  }
  static u128 gcd(u128 a, u128 b) {
    while (b != 0) {
      u128 t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
  // Sets n/d (d ≠ 0) reduced, if it fits in 64 bits; false (unchanged) otherwise.
  bool set_reduced(i128 n, i128 d) {
    if (d < 0) n = -n, d = -d;
    u128 g = gcd(n < 0 ? static_cast<u128>(-n) : static_cast<u128>(n), static_cast<u128>(d));
    if (g > 1) n /= static_cast<i128>(g), d /= static_cast<i128>(g);
    constexpr i128 lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    if (n < lo || n > hi || d > hi) return false;
    n_ = static_cast<std::int64_t>(n);
    d_ = static_cast<std::int64_t>(d);
    big_.reset();
    return true;
  }
  void assign(const rational& r) {
#if defined(GPUEQ_HAVE_GMP) && GPUEQ_HAVE_GMP
    // Straight from GMP's limbs: numerator(r) and the comparisons with int64 bounds would each
    // build a temporary GMP value (a heap allocation) for what is almost always a small constant.
    static_assert(sizeof(long) == sizeof(std::int64_t));
    const auto* q = r.backend().data();
    if (mpz_fits_slong_p(mpq_numref(q)) && mpz_fits_slong_p(mpq_denref(q))) {
      n_ = mpz_get_si(mpq_numref(q));
      d_ = mpz_get_si(mpq_denref(q));
      big_.reset();
    } else {
      big_ = std::make_unique<rational>(r);
    }
#else
    const auto& num = boost::multiprecision::numerator(r);
    const auto& den = boost::multiprecision::denominator(r);
    constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    if (num >= lo && num <= hi && den <= hi) {
      n_ = static_cast<std::int64_t>(num);
      d_ = static_cast<std::int64_t>(den);
      big_.reset();
    } else {
      big_ = std::make_unique<rational>(r);
    }
#endif
  }

  std::int64_t n_ = 0, d_ = 1;
  std::unique_ptr<rational> big_;
};

}  // namespace gpueq::support
