// Hash mixing used by the term store, the canonicalizer and fingerprints. Deterministic across
// runs and platforms (no std::hash of pointers), so term order and printing are reproducible.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpueq::support {

// The splitmix64 finalizer: a cheap bijective mixer with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) noexcept {
  return mix64(seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// FNV-1a over bytes, then mixed: for names.
constexpr std::uint64_t hash_string(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

}  // namespace gpueq::support
