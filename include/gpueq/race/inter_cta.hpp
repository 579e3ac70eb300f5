// Inter-CTA races on global memory, and the observer that feeds them. CTAs of a grid run one at a
// time from the same initial memory, so the race context of one CTA's run never sees two CTAs
// meet; instead every CTA's run records the global bytes it read, wrote and updated atomically
// (its footprint), and the grid's footprints are merged in grid order: a byte written by one CTA
// and touched by another is a race (L&T's global non-interference), atomics of one commuting
// operation from different CTAs are not. The symbolic run of a check (check/sides.hpp)
// records footprints through recording_observer, which forwards every event to the race context.
#pragma once

#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/race/context.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpueq::race {

// A CTA as reports name it: (x,y,z).
inline std::string cta_text(const exec::dim3& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
}

inline std::string_view name(exec::atomic_op op) {
  constexpr std::string_view names[] = {"none", "add", "min", "max", "and", "or", "xor", "exch/cas/inc/dec"};
  return names[static_cast<std::size_t>(op)];
}

// The global bytes one CTA touched, kept per 4-byte word as one mask per kind (bit b: byte b of
// the word), so that two CTAs writing the two f16 halves of one word do not meet. Atomics are a
// kind of their own, with their operation (exec::atomic_op): atomics of one commuting operation
// from different CTAs give the same memory in any order.
struct cta_footprint {
  struct word {
    std::uint8_t read = 0, written = 0, atomic = 0;
    exec::atomic_op op = exec::atomic_op::none;  // of the atomics; `other` when they mix operations
  };
  boost::unordered_flat_map<std::uint64_t, word> words;  // region << 44 | word
  void access(const exec::access& a, const exec::run_info& info) {
    if (info.regions[a.region].space != exec::memory_space::global || a.width == 0) return;
    const std::uint64_t end = a.offset + a.width;
    for (std::uint64_t w = a.offset >> 2; w <= (end - 1) >> 2; ++w) {
      const std::uint64_t base = w << 2;
      const unsigned lo = static_cast<unsigned>(std::max(a.offset, base) - base);
      const unsigned hi = static_cast<unsigned>(std::min(end, base + 4) - base);
      const auto mask = static_cast<std::uint8_t>(((1u << hi) - 1) & ~((1u << lo) - 1));
      word& x = words[(std::uint64_t{a.region} << 44) | w];
      switch (a.kind) {
        case exec::access_kind::read: x.read |= mask; break;
        case exec::access_kind::write: x.written |= mask; break;
        case exec::access_kind::atomic:
          x.op = x.atomic == 0 || x.op == a.op ? a.op : exec::atomic_op::other;
          x.atomic |= mask;
          break;
      }
    }
  }
  // The operation by which this CTA updated bytes [offset, offset + width) of a region when it
  // touched every one of them, and only by atomics of that one commuting operation; else none.
  exec::atomic_op atomic_only(std::uint32_t region, std::uint64_t offset, std::uint64_t width) const {
    exec::atomic_op op = exec::atomic_op::none;
    for (std::uint64_t b = offset; b < offset + width; ++b) {
      auto it = words.find((std::uint64_t{region} << 44) | (b >> 2));
      if (it == words.end()) return exec::atomic_op::none;
      const word& x = it->second;
      const auto bit = static_cast<std::uint8_t>(1u << (b & 3));
      if ((x.read | x.written) & bit || !(x.atomic & bit) || x.op == exec::atomic_op::other) return exec::atomic_op::none;
      if (op != exec::atomic_op::none && op != x.op) return exec::atomic_op::none;
      op = x.op;
    }
    return op;
  }
};

// Inter-CTA races on global memory (L&T's global non-interference): CTAs run independently, so
// the race context cannot see two CTAs meet; instead every global byte remembers the CTAs that
// wrote, read and atomically updated it, and a byte written by one CTA and touched by another,
// or read by one and updated atomically by another, or updated by atomics of two CTAs that do not
// commute (different operations, or exch/cas/inc/dec), is a race: its final value, or what the
// other CTA read, depends on the order of the CTAs. Atomics of one commuting operation (add, min,
// max, and, or, xor) do not race with each other. CTAs are added in grid order, so the conflict
// reported is the same whatever order they ran in.
class grid_footprint {
 public:
  void add(std::int32_t cta, exec::dim3 id, const cta_footprint& f, const exec::run_info& info) {
    if (ids_.size() <= static_cast<std::size_t>(cta)) ids_.resize(static_cast<std::size_t>(cta) + 1);
    ids_[static_cast<std::size_t>(cta)] = id;
    if (conflict_) return;
    for (const auto& [key, mine] : f.words) {
      word& x = words_[key];
      for (unsigned b = 0; b < 4; ++b) {
        const auto bit = static_cast<std::uint8_t>(1u << b);
        const bool r = mine.read & bit, w = mine.written & bit, at = mine.atomic & bit;
        if (!(r || w || at)) continue;
        byte& y = x.bytes[b];
        // How each side touched the byte (the message is built only for a conflict).
        enum class how : std::uint8_t { read, written, updated };
        std::int32_t other = -1;
        how theirs = how::read, ours = w ? how::written : at ? how::updated : how::read;
        exec::atomic_op their_op = exec::atomic_op::none;
        if (y.writer >= 0) other = y.writer, theirs = how::written;
        else if (w && y.reader >= 0) other = y.reader, theirs = how::read;
        else if ((w || r) && y.atomic >= 0) other = y.atomic, theirs = how::updated, their_op = y.op;
        else if (at && y.reader >= 0) other = y.reader, theirs = how::read, ours = how::updated;
        else if (at && y.atomic >= 0 && (y.op != mine.op || mine.op == exec::atomic_op::other))
          other = y.atomic, theirs = how::updated, their_op = y.op, ours = how::updated;
        if (w && y.writer < 0) y.writer = cta;
        if (r && y.reader < 0) y.reader = cta;
        if (at && y.atomic < 0) y.atomic = cta, y.op = mine.op;
        if (other >= 0 && !conflict_) {
          auto text = [](how h, exec::atomic_op op) {
            return h == how::written ? std::string("written") : h == how::read ? std::string("read") : updated(op);
          };
          std::uint32_t region = static_cast<std::uint32_t>(key >> 44);
          std::uint64_t at_byte = ((key & ((std::uint64_t{1} << 44) - 1)) << 2) + b;
          const auto& rg = info.regions[region];
          const std::uint64_t unit = rg.element_bytes ? rg.element_bytes : 4;
          conflict_ = (rg.byte_indexed ? exec::place_name(rg, at_byte) : rg.name + "[" + std::to_string(at_byte / unit) + "]") +
                      " is " + text(ours, mine.op) + " by CTA " + cta_text(id) + " and " +
                      text(theirs, their_op) + " by CTA " + cta_text(ids_[static_cast<std::size_t>(other)]) +
                      " (the result depends on the order of the CTAs)";
        }
      }
    }
  }
  const std::optional<std::string>& conflict() const { return conflict_; }

 private:
  static std::string updated(exec::atomic_op op) { return "updated atomically (" + std::string(name(op)) + ")"; }
  struct byte {
    std::int32_t writer = -1, reader = -1, atomic = -1;  // the first CTA that wrote / read / updated it
    exec::atomic_op op = exec::atomic_op::none;          // that first atomic CTA's operation
  };
  struct word {
    std::array<byte, 4> bytes;
  };
  boost::unordered_flat_map<std::uint64_t, word> words_;
  std::vector<exec::dim3> ids_;
  std::optional<std::string> conflict_;
};

// Records a CTA's global atomics only (their bytes and operation), for the runs without a race
// context (check::run_grids: the float32 report, counterexample replay): an element that several
// CTAs updated by commuting atomics gets all their contributions. Those runs follow a symbolic
// run whose inter-CTA pass found no race, so atomics are all that needs recording.
struct atomic_observer {
  cta_footprint* footprint = nullptr;
  exec::run_info info;
  void on_start(const exec::run_info& i) {
    info = i;
    footprint->words.clear();  // a CTA run that starts over (check::run_cta) records afresh
  }
  void on_access(const exec::access& a) {
    if (a.kind == exec::access_kind::atomic) footprint->access(a, info);
  }
  void on_barrier_register(const exec::barrier_registration&, exec::barrier_key, std::uint32_t, std::uint32_t) {}
  void on_barrier_complete(const exec::barrier_instance&) {}
  void on_barrier_acquire(const exec::barrier_registration&, exec::barrier_key, std::uint32_t) {}
  void on_exit(std::uint32_t, std::uint32_t) {}
};

// The race context, with every global access also recorded in the CTA's footprint.
struct recording_observer {
  context* ctx = nullptr;
  cta_footprint* footprint = nullptr;
  void on_start(const exec::run_info& i) {
    ctx->on_start(i);
    footprint->words.clear();  // a CTA run that starts over (check::run_cta) records afresh
  }
  bool found_race() const { return ctx->found_race(); }
  void on_access(const exec::access& a) {
    ctx->on_access(a);
    if (a.kind != exec::access_kind::read || !ctx->skips_reads(a.region)) footprint->access(a, ctx->info());
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    ctx->on_barrier_register(r, k, g, e);
  }
  void on_barrier_complete(const exec::barrier_instance& b) { ctx->on_barrier_complete(b); }
  void on_barrier_acquire(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g) {
    ctx->on_barrier_acquire(r, k, g);
  }
  void on_exit(std::uint32_t t, std::uint32_t instruction) { ctx->on_exit(t, instruction); }
};

}  // namespace gpueq::race
