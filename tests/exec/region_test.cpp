// exec::region's byte-to-value slots kept per granule (exec/memory.hpp): the granule a region
// takes from its first store, the refinement a smaller or misaligned store forces, and that the
// value covering each byte is what it was before either.
#include <gpueq/exec/memory.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace {

using gpueq::exec::region;
using cell = gpueq::exec::cell<double>;

// The slot of every byte of [0, bytes).
std::vector<std::uint32_t> slots(const region<double>& r, std::uint64_t bytes) {
  std::vector<std::uint32_t> out;
  for (std::uint64_t b = 0; b < bytes; ++b) out.push_back(r.slot(b));
  return out;
}

}  // namespace

TEST_CASE("region: a slot per element while stores are whole elements, refined by a smaller one") {
  region<double> r;
  r.bytes = 64;
  r.store(0, 4, cell::of_bits(10));  // id 1 over bytes 0..3
  r.store(4, 4, cell::of_bits(11));  // id 2 over bytes 4..7
  r.store(8, 4, cell::of_bits(12));  // id 3 over bytes 8..11
  CHECK(r.granule() == 4);
  CHECK(slots(r, 16) == std::vector<std::uint32_t>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 0, 0, 0, 0});

  r.store(6, 2, cell::of_bits(13));  // id 4 over bytes 6..7: halves
  CHECK(r.granule() == 2);
  CHECK(slots(r, 16) == std::vector<std::uint32_t>{1, 1, 1, 1, 2, 2, 4, 4, 3, 3, 3, 3, 0, 0, 0, 0});

  r.store(9, 1, cell::of_bits(14));  // id 5 over byte 9
  CHECK(r.granule() == 1);
  CHECK(slots(r, 16) == std::vector<std::uint32_t>{1, 1, 1, 1, 2, 2, 4, 4, 3, 5, 3, 3, 0, 0, 0, 0});

  // The same place again is overwritten in place, whatever the granule.
  r.store(0, 4, cell::of_bits(20));
  CHECK(r.values().size() == 5);
  REQUIRE(r.exact(0, 4) != nullptr);
  CHECK(r.exact(0, 4)->bits == 20);
  CHECK(r.exact(9, 1)->bits == 14);
  // Byte 8's value still starts there, but byte 9 is another's: it is not read whole again.
  CHECK(r.exact(8, 4) == nullptr);
  CHECK(r.exact(4, 4) == nullptr);  // bytes 6..7 were covered by the half
  // Stored whole again, the word is a new value over all four bytes (not an overwrite in place
  // of the old one, whose byte 9 would stay the other's).
  r.store(8, 4, cell::of_bits(30));
  CHECK(r.values().size() == 6);
  CHECK(slots(r, 16) == std::vector<std::uint32_t>{1, 1, 1, 1, 2, 2, 4, 4, 6, 6, 6, 6, 0, 0, 0, 0});
  REQUIRE(r.exact(8, 4) != nullptr);
  CHECK(r.exact(8, 4)->bits == 30);
}

TEST_CASE("region: the first store sets the granule, up to 8 bytes, and a narrower one refines it") {
  region<double> wide;
  wide.bytes = 64;
  wide.store(16, 8, cell::of_bits(1));  // id 1 over 16..23
  CHECK(wide.granule() == 8);
  wide.store(32, 16, cell::of_bits(2));  // id 2 over 32..47: two granules
  CHECK(wide.granule() == 8);
  wide.store(20, 4, cell::of_bits(3));  // id 3 over 20..23
  CHECK(wide.granule() == 4);
  std::vector<std::uint32_t> expect(48, 0);
  for (int b = 16; b < 20; ++b) expect[b] = 1;
  for (int b = 20; b < 24; ++b) expect[b] = 3;
  for (int b = 32; b < 48; ++b) expect[b] = 2;
  CHECK(slots(wide, 48) == expect);

  region<double> odd;
  odd.bytes = 64;
  odd.store(6, 2, cell::of_bits(1));  // offset 6: granules of 2 from the start
  CHECK(odd.granule() == 2);
  odd.store(3, 1, cell::of_bits(2));
  CHECK(odd.granule() == 1);
  CHECK(slots(odd, 8) == std::vector<std::uint32_t>{0, 0, 0, 2, 0, 0, 1, 1});
}

TEST_CASE("region: refining keeps the slots of every page, far ones included") {
  // 3000 floats: element e at byte 4e, id e + 1; at granule 4 they fill six pages of 512 slots,
  // at granule 1 twenty-four.
  region<double> r;
  r.bytes = 4 * 3000;
  for (std::uint64_t e = 0; e < 3000; ++e) r.store(4 * e, 4, cell::of_bits(e));
  CHECK(r.granule() == 4);
  r.store(4 * 3000 - 1, 1, cell::of_bits(99));  // the last byte: id 3001
  CHECK(r.granule() == 1);
  bool all = true;
  for (std::uint64_t b = 0; b + 1 < 4 * 3000; ++b) all = all && r.slot(b) == b / 4 + 1;
  CHECK(all);
  CHECK(r.slot(4 * 3000 - 1) == 3001);
  CHECK(r.slot(4 * 3000) == 0);  // past the end of what was stored
  CHECK(r.touched_elements().size() == 3000);
}

TEST_CASE("region: random stores of 1 to 8 bytes read back as a byte array holds them") {
  // The model: a byte array. Each stored value's bits are its bytes, little-endian; every byte of
  // the region must be found, through its slot, in the value last stored over it, and a value read
  // whole (exact) must be the bytes the model holds there.
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    CAPTURE(seed);
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ull;
    auto next = [&] {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    region<double> r;
    r.bytes = 256;
    std::vector<int> model(256, -1);  // -1: never written
    const std::uint32_t widths[] = {8, 4, 2, 1};
    // The first stores are wide (the granule starts large), narrower ones come in later.
    for (int op = 0; op < 3000; ++op) {
      const std::uint32_t w = widths[op < 200 ? next() % 2 : next() % 4];
      const std::uint64_t at = (next() % (256 / w)) * w;
      const std::uint64_t bits = next() & (w == 8 ? ~0ull : (1ull << (8 * w)) - 1);
      r.store(at, w, cell::of_bits(bits));
      for (std::uint32_t b = 0; b < w; ++b) model[at + b] = static_cast<int>(bits >> (8 * b) & 0xff);
      if (op % 50 != 49) continue;
      bool bytes_ok = true, exact_ok = true;
      for (std::uint64_t b = 0; b < 256; ++b) {
        const std::uint32_t s = r.slot(b);
        if (model[b] < 0) {
          bytes_ok = bytes_ok && s == 0;
          continue;
        }
        if (s == 0) {
          bytes_ok = false;
          continue;
        }
        const auto& v = r.value(s);
        bytes_ok = bytes_ok && b >= v.offset && b < v.offset + v.width &&
                   static_cast<int>(v.value.bits >> (8 * (b - v.offset)) & 0xff) == model[b];
      }
      for (std::uint32_t w2 : widths)
        for (std::uint64_t at2 = 0; at2 < 256; at2 += w2)
          if (const cell* c = r.exact(at2, w2))
            for (std::uint32_t b = 0; b < w2; ++b)
              exact_ok = exact_ok && static_cast<int>(c->bits >> (8 * b) & 0xff) == model[at2 + b];
      // any_slot / any_empty (one lookup per granule) against the model's bytes, for every
      // aligned range of 1 to 8 bytes and for some that straddle granules.
      bool ranges_ok = true;
      std::uint32_t partly = 0;
      for (std::uint32_t w2 : {8u, 4u, 2u, 1u, 3u, 5u})
        for (std::uint64_t at2 = 0; at2 + w2 <= 256; at2 += (w2 & (w2 - 1)) ? 1 : w2) {
          bool written = false, unwritten = false;
          for (std::uint32_t b = 0; b < w2; ++b) (model[at2 + b] >= 0 ? written : unwritten) = true;
          partly += written && unwritten;
          ranges_ok = ranges_ok && r.any_slot(at2, w2) == written && r.any_empty(at2, w2) == unwritten;
        }
      CHECK(ranges_ok);
      if (op < 100) CHECK(partly > 0);  // (early on, some ranges are written in part)
      CHECK(bytes_ok);
      CHECK(exact_ok);
    }
    CHECK(r.granule() == 1);
    CHECK_FALSE(r.any_slot(0, 0));
    CHECK_FALSE(r.any_empty(0, 0));
  }
}
