// Inter-CTA races on global memory, and the observer that feeds them. CTAs of a grid run one at a
// time from the same initial memory, so the race context of one CTA's run never sees two CTAs
// meet; instead every CTA's run records the global words it read and wrote (its footprint), and
// the grid's footprints are merged in grid order: a word written by one CTA and touched by another
// is a race (L&T's global non-interference). The symbolic run of a check (check/sides.hpp)
// records footprints through recording_observer, which forwards every event to the race context.
#pragma once

#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/race/context.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::race {

// A CTA as reports name it: (x,y,z).
inline std::string cta_text(const exec::dim3& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
}

// The global words one CTA touched (bit 1: read, bit 2: written), for the inter-CTA pass.
struct cta_footprint {
  boost::unordered_flat_map<std::uint64_t, std::uint8_t> words;  // region << 44 | word
  void access(const exec::access& a, const exec::run_info& info) {
    if (info.regions[a.region].space != exec::memory_space::global) return;
    std::uint8_t bit = a.kind == exec::access_kind::read ? 1 : 2;
    for (std::uint64_t w = a.offset >> 2; w <= (a.offset + a.width - 1) >> 2; ++w)
      words[(std::uint64_t{a.region} << 44) | w] |= bit;
  }
};

// Inter-CTA races on global memory (L&T's global non-interference): CTAs run independently, so
// the race context cannot see two CTAs meet; instead every global word remembers the CTAs that
// wrote and read it, and a word written by one CTA and touched by another is a race (its final
// value, or what the other CTA read, depends on the order of the CTAs). CTAs are added in grid
// order, so the conflict reported is the same whatever order they ran in.
class grid_footprint {
 public:
  void add(std::int32_t cta, exec::dim3 id, const cta_footprint& f, const exec::run_info& info) {
    if (ids_.size() <= static_cast<std::size_t>(cta)) ids_.resize(static_cast<std::size_t>(cta) + 1);
    ids_[static_cast<std::size_t>(cta)] = id;
    if (conflict_) return;
    for (auto [key, bits] : f.words) {
      word& x = words_[key];
      bool write = bits & 2;
      std::int64_t other = -1;
      bool other_wrote = false;
      if (x.writer >= 0) other = x.writer, other_wrote = true;
      else if (write && x.reader >= 0) other = x.reader;
      if (write) x.writer = cta;
      if (x.reader < 0) x.reader = cta;
      if (other >= 0 && !conflict_) {
        std::uint32_t region = static_cast<std::uint32_t>(key >> 44);
        std::uint64_t w = key & ((std::uint64_t{1} << 44) - 1);
        const auto& r = info.regions[region];
        std::uint64_t unit = r.element_bytes ? r.element_bytes : 4;
        conflict_ = r.name + "[" + std::to_string((w << 2) / unit) + "] is " + (write ? "written" : "read") + " by CTA " +
                    cta_text(id) + " and " + (other_wrote ? "written" : "read") + " by CTA " +
                    cta_text(ids_[static_cast<std::size_t>(other)]) + " (the result depends on the order of the CTAs)";
      }
    }
  }
  const std::optional<std::string>& conflict() const { return conflict_; }

 private:
  struct word {
    std::int32_t writer = -1, reader = -1;  // the first CTA that wrote / touched it
  };
  boost::unordered_flat_map<std::uint64_t, word> words_;
  std::vector<exec::dim3> ids_;
  std::optional<std::string> conflict_;
};

// The race context, with every global access also recorded in the CTA's footprint.
struct recording_observer {
  context* ctx = nullptr;
  cta_footprint* footprint = nullptr;
  void on_start(const exec::run_info& i) { ctx->on_start(i); }
  void on_access(const exec::access& a) {
    ctx->on_access(a);
    if (a.kind != exec::access_kind::read || !ctx->skips_reads(a.region)) footprint->access(a, ctx->info());
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    ctx->on_barrier_register(r, k, g, e);
  }
  void on_barrier_complete(const exec::barrier_instance& b) { ctx->on_barrier_complete(b); }
  void on_exit(std::uint32_t t) { ctx->on_exit(t); }
};

}  // namespace gpueq::race
