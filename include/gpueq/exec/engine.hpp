// The execution engine: runs every thread of one CTA of a decoded PTX kernel under one schedule,
// with data values from a value domain (exec/domain.hpp) and every memory access and barrier
// event reported to an observer (exec/observer.hpp). Written once for all domains.
//
// Schedule: round robin over threads in linear-id order; a thread runs until it blocks (at a CTA
// barrier or a warp collective) or exits. VOLTA's confluence makes one schedule enough for a
// race-free, well-synchronized CTA; the race context (an observer) is what proves the CTA is one.
//
// Structured CTAs (VOLTA §3.2): addresses, branch conditions, barrier operands and loop bounds are
// concrete in every run; data may be symbolic. A symbolic value reaching one of those is a
// "not a structured CTA" error naming the instruction. A comparison of symbolic reals gives an
// undecided predicate that only selp (or a predicated mov) may consume, as max/min.
//
// Barriers: `bar.sync`/`barrier.sync` (id, optional count), `bar.arrive` (id, count), `bar.red`
// go through generations per id (WEFT). Counting is per warp, as PTX specifies for sm_70+: a warp
// counts as warp-size threads once all its non-exited threads have arrived. A barrier without a
// count waits for every non-exited thread of the CTA. Warp collectives (shfl, vote, match, redux,
// bar.warp.sync, mma, ldmatrix, wmma) wait for the non-exited threads of their member mask.
//
// Speed: a thread runs in a loop (run_thread) that executes the instructions with a fast form
// (program.hpp: integer and f32 arithmetic, comparisons, moves, loads and stores through a
// register, branches) inline, on registers the form reads directly, and hands everything else, and
// every case a form does not cover (symbolic operands, errors), to the generic path (generic_step).
// Both paths give the same results, errors and observer events; engine_options::fast_forms turns
// the fast one off, and tests/exec/fast_forms_test.cpp holds them to it.
//
// Which opcodes run at all is the opcode table's status column (ptx/opcodes.hpp): an unsupported
// opcode stops the run with the table's message when a thread reaches it (guard true), the same
// words `gpueq parse` lists it with; tests/exec/opcode_table_test.cpp holds the column to the
// dispatch below.
#pragma once

#include <gpueq/exec/domain.hpp>
#include <gpueq/exec/errors.hpp>
#include <gpueq/exec/floats.hpp>
#include <gpueq/exec/fragments.hpp>
#include <gpueq/exec/launch.hpp>
#include <gpueq/exec/memory.hpp>
#include <gpueq/exec/observer.hpp>
#include <gpueq/exec/program.hpp>
#include <gpueq/exec/values.hpp>
#include <gpueq/support/demangle.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

// GCC 12 reports -Wrestrict false positives inside std::string concatenation (GCC bug 105329)
// in the error messages below.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace gpueq::exec {

struct engine_options {
  std::uint64_t max_steps = 4'000'000'000;  // thread-instructions before giving up (unbounded loop)
  // Called every `progress_every` thread-instructions with the count so far.
  std::function<void(std::uint64_t)> progress;
  std::uint64_t progress_every = 50'000'000;
  // Legacy pre-Volta execution: the threads of a warp advance in lockstep, one instruction each in
  // turn (the schedule warp-synchronous code such as the classic reduction's unrolled last warp
  // was written for). Used with the race context's warp-synchronous mode.
  bool lockstep_warps = false;
  // 0: round robin in thread order, each thread until it blocks. Otherwise a seeded random
  // schedule: each sweep visits the threads in a random order and runs each for a random number
  // of instructions (1..64) before preempting it. A race-free kernel gives the same outputs under
  // every schedule (the tests check it); this is how they try many.
  std::uint64_t schedule_seed = 0;
  // Round robin in this thread order instead of 0, 1, 2, ... (a permutation of the CTA's threads;
  // race witnesses move one thread ahead of another to flip the order of two racing accesses).
  std::vector<std::uint32_t> thread_order;
  // Stop with a clear error when the process's resident memory exceeds this many MiB (0: no
  // limit). Checked every 2^16 thread-instructions (Linux: /proc/self/statm).
  std::uint64_t max_resident_mib = 0;
  // Run decoded fast forms (program.hpp) where their operands allow. Off, every instruction goes
  // through the generic path: the same results, errors and observer events, more slowly (the
  // tests compare the two).
  bool fast_forms = true;
};

// The resident memory of this process in MiB, 0 where it cannot be read.
inline std::uint64_t resident_mib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * 4096 / (1024 * 1024) : 0;
}

struct run_stats {
  std::uint64_t steps = 0;  // thread-instructions executed
  std::uint32_t barrier_instances = 0;
  std::uint32_t warp_collectives = 0;
};

// Address windows: where each state space lives in the 64-bit generic address space.
namespace address {
inline constexpr std::uint64_t global_stride = std::uint64_t{1} << 40;  // tensor i at (i+1) << 40
inline constexpr std::uint64_t shared_window = std::uint64_t{1} << 56;
inline constexpr std::uint64_t local_window = std::uint64_t{1} << 57;
inline constexpr std::uint64_t window_size = std::uint64_t{1} << 40;
}  // namespace address

template <value_domain D, observer O = null_observer>
class engine {
 public:
  using real = typename D::real;
  using value = cell<real>;

  engine(const program& p, const launch& l, D& d, O& o, engine_options options = {})
      : p_(p), l_(l), d_(d), o_(o), options_(std::move(options)) {}

  // Runs the CTA to completion; nullopt when it completed, else the first error.
  std::optional<run_error> run() {
    try {
      setup();
      schedule();
      return std::nullopt;
    } catch (const run_failure& f) {
      return f.error;
    }
  }

  const run_stats& stats() const { return stats_; }
  D& domain() { return d_; }

  // The final value of an output tensor element (flat index): the stored cell, or nullopt when no
  // thread wrote it. Elements are read whole; a value stored in pieces is assembled if concrete.
  std::optional<value> output(std::uint32_t tensor, std::uint64_t element) {
    region<real>& r = regions_[tensor];
    std::uint64_t off = element * r.element_bytes;
    bool written = false;
    for (std::uint32_t b = 0; b < r.element_bytes; ++b) written = written || r.slot(off + b);
    if (!written) return std::nullopt;
    if (const value* c = r.exact(off, r.element_bytes)) return *c;
    return assemble(r, off, r.element_bytes, 0, 0);
  }
  // A cell as a finished domain value of kind k (bits become constants).
  typename D::result as_real(const value& c, rkind k) { return d_.finish(to_real(c, k, 0)); }
  // An output element's cell as a finished domain value: integer tensors read their bits with the
  // tensor's width and signedness (an s32 -62 is stored as 0xffffffc2).
  typename D::result output_value(std::uint32_t tensor, const value& c) {
    const tensor_binding& t = l_.tensors[tensor];
    if (t.kind == rkind::integer && c.t == value::tag::bits) {
      std::uint64_t b = c.bits;
      unsigned w = 8 * t.element_bytes;
      if (w < 64) {
        b &= (std::uint64_t{1} << w) - 1;
        if (t.is_signed && (b >> (w - 1)) & 1) b |= ~((std::uint64_t{1} << w) - 1);
      }
      return d_.finish(d_.from_int(static_cast<std::int64_t>(b)));
    }
    return d_.finish(to_real(c, t.kind, 0));
  }

  // "kernel.ptx:42 (kernel.cu:7)" for an instruction index.
  std::string where(std::uint32_t instruction) const { return describe_instruction(p_, instruction); }

  static std::string describe_instruction(const program& p, std::uint32_t instruction) {
    const auto& ins = p.function->instructions[instruction];
    std::string s = p.module->file + ":" + std::to_string(ins.line);
    if (ins.loc.file && ins.loc.line) {
      auto it = p.module->files.find(ins.loc.file);
      std::string f = it != p.module->files.end() ? it->second : std::to_string(ins.loc.file);
      if (auto slash = f.find_last_of('/'); slash != std::string::npos) f = f.substr(slash + 1);
      s += " (" + f + ":" + std::to_string(ins.loc.line) + ")";
    }
    return s;
  }

 private:
  enum class status : std::uint8_t { runnable, at_barrier, at_warp, exited };

  struct cta_barrier {
    std::uint32_t generation = 1;
    std::uint32_t expected = 0;  // threads; 0 with all = true: every live thread
    bool all = false;
    std::uint32_t started_by = 0;  // instruction that opened this generation (for messages)
    std::vector<barrier_registration> regs;
  };

  struct pending_copy {  // cp.async: lands at wait_group
    std::uint64_t group;
    std::uint32_t instruction;
    std::uint32_t region;
    std::uint64_t offset;
    std::uint32_t width;
    value v;
  };

  // ---- setup -------------------------------------------------------------------------------
  void setup() {
    n_ = l_.threads();
    rng_ = options_.schedule_seed;
    if (n_ == 0) fail(error_kind::unsupported, 0, "the block has no threads");
    nregs_ = p_.registers;
    regs_.assign(std::size_t{n_} * nregs_, value{});
    status_.assign(n_, status::runnable);
    pc_.assign(n_, 0);
    barrier_of_.assign(n_, 0);
    warp_mask_.assign(n_, 0);
    copies_.assign(n_, {});
    copy_group_.assign(n_, 0);
    live_ = n_;
    warps_ = (n_ + warp_size - 1) / warp_size;
    warp_generation_.assign(warps_, 1);

    run_info info;
    info.threads = n_;
    info.warp_size = warp_size;
    // Global tensors first, so tensor i is region i.
    for (std::uint32_t i = 0; i < l_.tensors.size(); ++i) {
      const auto& t = l_.tensors[i];
      region<real> r;
      r.space = memory_space::global;
      r.name = t.name;
      r.base = (std::uint64_t{i} + 1) * address::global_stride;
      r.bytes = t.bytes();
      r.element_bytes = t.element_bytes;
      r.kind = t.kind;
      r.inputs = t.input;
      r.output = t.output;
      r.tensor = i;
      r.shape = t.shape;
      regions_.push_back(std::move(r));
    }
    std::uint64_t next_global = (l_.tensors.size() + 1) * address::global_stride;
    // Module-scope variables (.global, .const, .shared) and the kernel's own .shared/.local.
    std::uint64_t shared_top = 0;
    auto add_variable = [&](const ptx::variable& v) {
      std::uint32_t el = static_cast<std::uint32_t>(std::max<std::uint32_t>(1, bytes(type_of(v.type))) * std::max<std::uint32_t>(1, v.vec));
      // nvcc declares `float s[64]` as `.align 4 .b8 s[256]`: the alignment is the element size
      // (for naming addresses as s[index] in reports; accesses are by byte range regardless).
      std::uint32_t named = el == 1 && v.align > 1 ? std::min<std::uint32_t>(v.align, 8) : el;
      std::uint64_t size = v.elements() * el;
      std::uint64_t align = std::max<std::uint64_t>(v.align ? v.align : el, 1);
      if (v.space == ptx::state_space::shared) {
        bool dynamic = v.dims.size() == 1 && v.dims[0] == 0;
        if (dynamic) {
          dynamic_symbols_.push_back(v.name);
          return;
        }
        shared_top = (shared_top + align - 1) / align * align;
        add_region(memory_space::shared, v, shared_top, size, named);
        shared_top += size;
      } else if (v.space == ptx::state_space::global || v.space == ptx::state_space::constant) {
        add_region(v.space == ptx::state_space::global ? memory_space::global : memory_space::constant, v,
                   next_global, size, el);
        initialize(regions_.back(), v, el);
        next_global += address::global_stride;
      } else if (v.space == ptx::state_space::local) {
        local_top_ = (local_top_ + align - 1) / align * align;
        symbols_[v.name] = symbol{symbol::kind::local, 0, local_top_};
        local_top_ += size;
      }
    };
    for (const auto& v : p_.module->globals) add_variable(v);
    for (const auto& v : p_.function->locals) add_variable(v);
    if (!dynamic_symbols_.empty() || l_.dynamic_shared_bytes) {
      shared_top = (shared_top + 15) / 16 * 16;
      region<real> r;
      r.space = memory_space::shared;
      r.name = dynamic_symbols_.empty() ? std::string("dynamic shared") : support::readable_symbol(p_.str(dynamic_symbols_[0]));
      r.base = shared_top;
      r.bytes = l_.dynamic_shared_bytes;
      r.element_bytes = 4;
      auto index = static_cast<std::uint32_t>(regions_.size());
      regions_.push_back(std::move(r));
      for (auto s : dynamic_symbols_) symbols_[s] = symbol{symbol::kind::region, index, 0};
      shared_top += l_.dynamic_shared_bytes;
    }
    shared_bytes_ = shared_top;
    for (std::uint32_t i = 0; i < p_.function->params.size(); ++i)
      symbols_[p_.function->params[i].name] = symbol{symbol::kind::param, i, 0};
    if (l_.params.size() != p_.function->params.size())
      fail(error_kind::unsupported, 0,
           "the launch binds " + std::to_string(l_.params.size()) + " parameters but the kernel has " +
               std::to_string(p_.function->params.size()));
    for (std::uint32_t i = 0; i < regions_.size(); ++i) {
      const auto& r = regions_[i];
      info.regions.push_back(region_desc{r.space, r.name, r.element_bytes, r.bytes,
                                         r.space == memory_space::global && r.inputs && !r.output});
      if (r.space == memory_space::shared) shared_order_.push_back(i);
      else global_order_.push_back(i);
    }
    auto by_base = [&](std::uint32_t a, std::uint32_t b) { return regions_[a].base < regions_[b].base; };
    std::sort(shared_order_.begin(), shared_order_.end(), by_base);
    std::sort(global_order_.begin(), global_order_.end(), by_base);
    // A region no other region of its window starts inside: an address within it is found by the
    // per-instruction hint without the search (locate_fast).
    windows_.assign(regions_.size(), fast_window{});
    for (const auto* order : {&shared_order_, &global_order_})
      for (std::uint32_t i : *order) {
        auto& r = regions_[i];
        bool clean = true;
        for (std::uint32_t j : *order)
          if (j != i && regions_[j].base >= r.base && regions_[j].base - r.base < r.bytes) clean = false;
        windows_[i] = fast_window{r.base, clean ? r.bytes : 0, &r, r.space == memory_space::shared};
      }
    hint_.assign(p_.code.size(), ~0u);
    fast_forms_ = options_.fast_forms && p_.fast.size() == p_.code.size();  // (a program not from decode has none)
    next_check_ = 0;
    update_next_check();
    params_.clear();
    for (std::uint32_t i = 0; i < l_.params.size(); ++i) params_.push_back(param_value(i));
    locals_.clear();
    locals_.resize(local_top_ ? n_ : 0);
    o_.on_start(info);
  }

  struct symbol {
    enum class kind : std::uint8_t { region, param, local } k;
    std::uint32_t index;  // region or parameter
    std::uint64_t offset;  // local: offset in the thread's depot
  };

  static vtype type_of_name(std::string_view s) {
    auto t = vtype_of(s);
    return t ? *t : vtype::b8;
  }
  vtype type_of(std::uint32_t interned) const { return type_of_name(p_.str(interned)); }

  void add_region(memory_space space, const ptx::variable& v, std::uint64_t base, std::uint64_t size, std::uint32_t el) {
    region<real> r;
    r.space = space;
    r.name = support::readable_symbol(p_.str(v.name));
    r.base = base;
    r.bytes = size;
    r.element_bytes = el;
    auto index = static_cast<std::uint32_t>(regions_.size());
    regions_.push_back(std::move(r));
    symbols_[v.name] = symbol{symbol::kind::region, index, 0};
  }

  // Module .global/.const variables: their initializer, or zeros (static storage).
  void initialize(region<real>& r, const ptx::variable& v, std::uint32_t el) {
    std::uint64_t count = v.elements();
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t bits = 0;
      if (v.has_init && i < v.init.size()) bits = static_cast<std::uint64_t>(v.init[i].value);
      r.store(i * el, el, value::of_bits(bits));
    }
  }

  value param_value(std::uint32_t i) {
    const param_binding& b = l_.params[i];
    if (b.tensor) {
      value v = value::of_bits(regions_[b.index].base);
      v.provenance = b.index + 1;
      return v;
    }
    const scalar_binding& s = l_.scalars[b.index];
    vtype t = type_of(p_.function->params[i].type);
    if (s.symbolic) {
      input_ref in{static_cast<std::uint32_t>(l_.tensors.size() + b.index), s.name, 0, {},
                   rkind_of(t).value_or(rkind::f32)};
      return value::of_real(guarded([&] { return d_.input(in); }, 0), in.kind);
    }
    if (auto k = rkind_of(t)) return value::of_bits(floats::encode(floats::round_to(s.value, *k), *k));
    return value::of_bits(static_cast<std::uint64_t>(static_cast<std::int64_t>(s.value)));
  }

  // ---- scheduling --------------------------------------------------------------------------
  void schedule() {
    for (;;) {
      bool moved = false;
      if (options_.lockstep_warps) {
        for (std::uint32_t w = 0; w < warps_; ++w)
          for (bool any = true; any;) {
            any = false;
            for (std::uint32_t t = w * warp_size; t < std::min(n_, (w + 1) * warp_size); ++t)
              if (status_[t] == status::runnable) {
                step_once(t);
                any = moved = true;
              }
          }
      } else if (options_.schedule_seed) {
        std::vector<std::uint32_t> order(n_);
        for (std::uint32_t t = 0; t < n_; ++t) order[t] = t;
        for (std::uint32_t i = n_; i > 1; --i) std::swap(order[i - 1], order[random() % i]);
        for (std::uint32_t t : order)
          for (std::uint64_t k = 1 + random() % 64; k > 0 && status_[t] == status::runnable; --k) {
            step_once(t);
            moved = true;
          }
      } else if (options_.thread_order.size() == n_) {
        for (std::uint32_t t : options_.thread_order)
          if (t < n_ && status_[t] == status::runnable) {
            run_thread(t);
            moved = true;
          }
      } else {
        for (std::uint32_t t = 0; t < n_; ++t)
          if (status_[t] == status::runnable) {
            run_thread(t);
            moved = true;
          }
      }
      if (live_ == 0) break;
      if (!moved) deadlock();
    }
    for (std::uint32_t b = 0; b < 16; ++b)
      if (!barriers_[b].regs.empty()) {
        auto& bar = barriers_[b];
        fail(error_kind::barrier, bar.regs.front().thread,
             "barrier " + std::to_string(b) + " generation " + std::to_string(bar.generation) + " never completed: " +
                 std::to_string(bar.regs.size()) + " of " + std::to_string(bar.expected) +
                 " threads arrived and every thread has exited",
             bar.started_by);
    }
  }

  [[noreturn]] void deadlock() {
    // Group the blocked threads by where they wait.
    std::map<std::uint32_t, std::vector<std::uint32_t>> at;
    for (std::uint32_t t = 0; t < n_; ++t)
      if (status_[t] == status::at_barrier || status_[t] == status::at_warp) at[pc_[t]].push_back(t);
    std::string msg = "deadlock: no thread can move;";
    std::uint32_t first = at.begin()->second.front();
    for (auto& [pc, ts] : at) {
      msg += " " + std::to_string(ts.size()) + " thread(s) (first " + thread_name(ts.front()) + ") wait at " +
             std::string(ptx::name(p_.code[pc].op)) + " " + where(pc);
      if (status_[ts.front()] == status::at_barrier) {
        auto& bar = barriers_[barrier_of_[ts.front()]];
        msg += " [barrier " + std::to_string(barrier_of_[ts.front()]) + " generation " +
               std::to_string(bar.generation) + ": " + std::to_string(bar.regs.size()) + " registered, " +
               (bar.all ? std::string("all live threads") : std::to_string(bar.expected)) + " expected]";
      } else {
        msg += " [warp collective, member mask 0x" + hex(warp_mask_[ts.front()]) + "]";
      }
      msg += ";";
    }
    msg += " " + std::to_string(n_ - live_) + " thread(s) exited";
    fail(error_kind::deadlock, first, msg, at.begin()->first);
  }

  void exit_thread(std::uint32_t t) {
    status_[t] = status::exited;
    --live_;
    o_.on_exit(t);
    // Exited threads no longer hold anyone back.
    for (std::uint32_t b = 0; b < 16; ++b)
      if (!barriers_[b].regs.empty()) try_complete(b);
    std::uint32_t w = t / warp_size;
    for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u)
      if (status_[u] == status::at_warp) {
        try_collective(u);
        break;
      }
  }

  std::uint64_t random() {  // splitmix64 over the schedule seed
    rng_ += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = rng_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // Runs thread t until it blocks or exits: step_once in a loop, with the fast forms inline.
  void run_thread(std::uint32_t t) {
    if (status_[t] != status::runnable) return;
    const std::size_t size = p_.code.size();
    const bool fast = fast_forms_;
    std::uint32_t pc = pc_[t];
    for (;;) {
      if (++stats_.steps >= next_check_) checks(t);
      if (pc >= size) {
        exit_thread(t);
        return;
      }
      if (fast) {
        std::uint32_t next = fast_step(t, pc);
        if (next != no_fast) {
          pc_[t] = pc = next;
          continue;
        }
      }
      generic_step(t, p_.code[pc], pc);
      if (status_[t] != status::runnable) return;
      pc = pc_[t];
    }
  }
  void step_once(std::uint32_t t) {
    if (++stats_.steps >= next_check_) checks(t);
    if (pc_[t] >= p_.code.size()) {
      exit_thread(t);
      return;
    }
    step(t);
  }
  // The step limit, the progress callback and the memory limit, at the step counts where one of
  // them has something to do (next_check_).
  void checks(std::uint32_t t) {
    if (stats_.steps > options_.max_steps)
      fail(error_kind::limit, t, "more than " + std::to_string(options_.max_steps) + " thread-instructions executed",
           pc_[t]);
    if (options_.progress && options_.progress_every && stats_.steps % options_.progress_every == 0)
      options_.progress(stats_.steps);
    if (options_.max_resident_mib && (stats_.steps & ((1u << 16) - 1)) == 0)
      if (std::uint64_t mib = resident_mib(); mib > options_.max_resident_mib)
        fail(error_kind::limit, t,
             "memory limit of " + std::to_string(options_.max_resident_mib) + " MiB exceeded (resident: " +
                 std::to_string(mib) + " MiB)",
             pc_[t]);
    update_next_check();
  }
  void update_next_check() {
    std::uint64_t s = stats_.steps;
    std::uint64_t next = options_.max_steps == ~std::uint64_t{0} ? ~std::uint64_t{0} : options_.max_steps + 1;
    if (next <= s) next = s + 1;
    if (options_.progress && options_.progress_every)
      next = std::min(next, (s / options_.progress_every + 1) * options_.progress_every);
    if (options_.max_resident_mib) next = std::min(next, ((s >> 16) + 1) << 16);
    next_check_ = next;
  }

  // ---- errors ------------------------------------------------------------------------------
  std::string thread_name(std::uint32_t t) const {
    std::uint32_t x = t % l_.block[0], y = (t / l_.block[0]) % l_.block[1], z = t / (l_.block[0] * l_.block[1]);
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
  }
  static std::string hex(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
  }
  [[noreturn]] void fail(error_kind k, std::uint32_t t, const std::string& reason,
                         std::optional<std::uint32_t> instruction = std::nullopt) const {
    run_error e;
    e.kind = k;
    e.thread = t;
    if (instruction) {
      e.instruction = *instruction;
      e.has_instruction = true;
      e.message = where(*instruction) + ": thread " + thread_name(t) + " (warp " + std::to_string(t / warp_size) +
                  ", lane " + std::to_string(t % warp_size) + "): " + reason;
    } else {
      e.message = p_.module->file + ": " + reason;
    }
    throw run_failure(std::move(e));
  }
  [[noreturn]] void fail_at(error_kind k, std::uint32_t t, const std::string& reason) const {
    fail(k, t, std::string(name(k)) + ": " + reason + " (in `" + instruction_text(pc_[t]) + "`)", pc_[t]);
  }
  std::string instruction_text(std::uint32_t pc) const {
    const auto& i = p_.function->instructions[pc];
    std::string s(ptx::name(i.op));
    for (auto m : i.mods) s += p_.str(m);
    return s;
  }

  // Runs a domain operation, turning its domain_error/term_error into an error at the thread's
  // instruction.
  template <class F>
  auto guarded(F&& f, std::uint32_t t) {
    try {
      return f();
    } catch (const domain_error& e) {
      // Symbolically, a value the domain cannot form comes from asking a symbolic value for
      // something concrete; concretely (exp in rationals, division by zero) it is the value itself.
      fail_at(D::symbolic ? error_kind::not_structured : error_kind::domain, t, e.what());
    } catch (const term::term_error& e) {
      fail_at(error_kind::domain, t, e.what());
    }
  }

  // ---- registers and operands --------------------------------------------------------------
  value& reg(std::uint32_t t, std::uint32_t r) { return regs_[std::size_t{t} * nregs_ + r]; }

  std::uint64_t special(std::uint32_t t, special_reg s) const {
    std::uint32_t x = t % l_.block[0], y = (t / l_.block[0]) % l_.block[1], z = t / (l_.block[0] * l_.block[1]);
    std::uint32_t lane = t % warp_size;
    switch (s) {
      case special_reg::tid_x: return x;
      case special_reg::tid_y: return y;
      case special_reg::tid_z: return z;
      case special_reg::ntid_x: return l_.block[0];
      case special_reg::ntid_y: return l_.block[1];
      case special_reg::ntid_z: return l_.block[2];
      case special_reg::ctaid_x: return l_.cta[0];
      case special_reg::ctaid_y: return l_.cta[1];
      case special_reg::ctaid_z: return l_.cta[2];
      case special_reg::nctaid_x: return l_.grid[0];
      case special_reg::nctaid_y: return l_.grid[1];
      case special_reg::nctaid_z: return l_.grid[2];
      case special_reg::laneid: return lane;
      case special_reg::warpid: return t / warp_size;
      case special_reg::nwarpid: return warps_;
      case special_reg::lanemask_eq: return std::uint64_t{1} << lane;
      case special_reg::lanemask_lt: return (std::uint64_t{1} << lane) - 1;
      case special_reg::lanemask_le: return (std::uint64_t{2} << lane) - 1;
      case special_reg::lanemask_gt: return ~((std::uint64_t{2} << lane) - 1) & 0xffffffffu;
      case special_reg::lanemask_ge: return ~((std::uint64_t{1} << lane) - 1) & 0xffffffffu;
      case special_reg::dynamic_smem_size: return l_.dynamic_shared_bytes;
      case special_reg::total_smem_size: return shared_bytes_;
      case special_reg::clock: case special_reg::clock64: case special_reg::globaltimer: return stats_.steps;
      default: return 0;
    }
  }

  std::uint64_t symbol_address(std::uint32_t t, std::uint32_t sym, std::uint64_t offset) {
    auto it = symbols_.find(sym);
    if (it == symbols_.end()) fail_at(error_kind::unsupported, t, "unknown symbol '" + std::string(p_.str(sym)) + "'");
    const symbol& s = it->second;
    switch (s.k) {
      case symbol::kind::region: return regions_[s.index].base + offset;
      case symbol::kind::local: return s.offset + offset;  // a .local-space address
      case symbol::kind::param: fail_at(error_kind::unsupported, t, "the address of a kernel parameter");
    }
    return 0;
  }

  std::uint32_t symbol_provenance(std::uint32_t sym) const {
    auto it = symbols_.find(sym);
    return it != symbols_.end() && it->second.k == symbol::kind::region ? it->second.index + 1 : 0;
  }

  value read(std::uint32_t t, const xoperand& o) {
    switch (o.k) {
      case xoperand::kind::reg: {
        const value& v = reg(t, o.reg);
        if (v.t == value::tag::empty) {
          if (v.bits == 1)
            fail_at(error_kind::not_structured, t,
                    "register " + std::string(p_.str(p_.register_names[o.reg])) +
                        " holds the old value returned by an atomic on symbolic data, which depends on the schedule");
          fail_at(error_kind::uninitialized, t,
                  "register " + std::string(p_.str(p_.register_names[o.reg])) + " is read before it is written");
        }
        if (o.negated) return value::of_bits(!truth(t, v));
        return v;
      }
      case xoperand::kind::imm: return value::of_bits(o.imm);
      case xoperand::kind::special: return value::of_bits(special(t, o.sp));
      case xoperand::kind::symbol: {
        value v = value::of_bits(symbol_address(t, o.sym, o.imm));
        v.provenance = symbol_provenance(o.sym);
        return v;
      }
      default: fail_at(error_kind::unsupported, t, "operand form");
    }
  }
  void write(std::uint32_t t, const xoperand& o, value v) {
    if (o.k == xoperand::kind::reg) reg(t, o.reg) = std::move(v);
    else if (o.k != xoperand::kind::sink) fail_at(error_kind::unsupported, t, "destination operand form");
  }

  // A predicate's truth; symbolic comparisons cannot steer control flow.
  bool truth(std::uint32_t t, const value& v) {
    if (v.t == value::tag::bits) return v.bits & 1;
    if (v.t == value::tag::predicate)
      fail_at(error_kind::not_structured, t,
              "a predicate compares symbolic values (" + d_.show(v.r) + " vs " + d_.show(v.r2) +
                  ") and decides control flow or a guarded instruction");
    if (auto i = v.t == value::tag::real ? d_.integer(v.r) : std::nullopt) return *i != 0;
    fail_at(error_kind::not_structured, t, "a predicate depends on symbolic data");
  }

  // The value of a cell as a domain value of kind k (bits are decoded in format k).
  real to_real(const value& v, rkind k, std::uint32_t t) {
    switch (v.t) {
      case value::tag::real: return v.r;
      case value::tag::bits:
        if (k == rkind::integer) return d_.from_int(static_cast<std::int64_t>(v.bits));
        return guarded([&] { return d_.from_float(v.bits, k); }, t);
      case value::tag::packed: fail_at(error_kind::unsupported, t, "a packed f16x2 value used as a scalar");
      default: fail_at(error_kind::not_structured, t, "a symbolic predicate used as a number");
    }
  }
  // The bits of a cell (for integer and bit instructions): concrete values only.
  std::uint64_t to_bits(const value& v, std::uint32_t t) {
    switch (v.t) {
      case value::tag::bits: return v.bits;
      case value::tag::real: {
        if (v.k == rkind::integer) {
          if (auto i = d_.integer(v.r)) return static_cast<std::uint64_t>(*i);
        } else if (auto b = d_.float_bits(v.r, v.k)) {
          return *b;
        }
        fail_at(error_kind::not_structured, t,
                "an integer or bit operation, an address or a branch depends on symbolic data (" + d_.show(v.r) + ")");
      }
      case value::tag::packed: {
        auto lo = d_.float_bits(v.r, v.k), hi = d_.float_bits(v.r2, v.k);
        if (lo && hi) return *lo | (*hi << 16);
        fail_at(error_kind::not_structured, t, "a bit operation on packed symbolic halves");
      }
      default: fail_at(error_kind::not_structured, t, "a symbolic predicate used as bits");
    }
  }
  bool is_symbolic(const value& v) {
    if (v.t == value::tag::bits) return false;
    if (v.t == value::tag::real && v.k == rkind::integer) return !d_.integer(v.r);
    if (v.t == value::tag::real) return !d_.float_bits(v.r, v.k);
    return true;
  }

  // ---- execution ---------------------------------------------------------------------------
  static std::uint64_t mask_of(vtype t) {
    std::uint32_t b = bytes(t);
    return b >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * b)) - 1;
  }
  static std::int64_t sext(std::uint64_t v, vtype t) {
    std::uint32_t b = bytes(t);
    if (b >= 8) return static_cast<std::int64_t>(v);
    unsigned shift = 64 - 8 * b;
    return static_cast<std::int64_t>(v << shift) >> shift;
  }
  static float_mode mode_of(const xinstr& x) {
    float_mode m;
    m.round = x.round == rounding::none ? rounding::rn : x.round;
    m.ftz = x.has(flag::ftz);
    m.sat = x.has(flag::sat);
    m.approx = x.has(flag::approx);
    return m;
  }

  void step(std::uint32_t t) {
    const std::uint32_t pc = pc_[t];
    const xinstr& x = p_.code[pc];
    if (fast_forms_)
      if (std::uint32_t next = fast_step(t, pc); next != no_fast) {
        pc_[t] = next;
        return;
      }
    generic_step(t, x, pc);
  }

  void generic_step(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    if (x.guarded) {
      const value& g = reg(t, x.guard);
      if (g.t == value::tag::empty) fail_at(error_kind::uninitialized, t, "guard predicate read before it is written");
      if (g.t == value::tag::predicate && x.op == ptx::opcode::mov && !is_collective(x.op)) {
        guarded_move(t, x, g);
        pc_[t] = pc + 1;
        return;
      }
      if (truth(t, g) == x.guard_negated) {
        pc_[t] = pc + 1;
        return;
      }
    }
    // An opcode the table marks unsupported stops here with the table's message, the words
    // `gpueq parse` listed it with (ptx/opcodes.hpp), before any modifier or operand is looked at.
    if (!ptx::is_supported(x.op)) fail_at(error_kind::unsupported, t, std::string(ptx::unsupported_message(x.op)));
    if (!x.unknown_mods.empty() && !tolerates_unknown(x.op))
      fail_at(error_kind::unsupported, t, "modifier " + std::string(p_.str(x.unknown_mods.front())));
    using op = ptx::opcode;
    switch (x.op) {  // instructions that decide where the thread goes next
      case op::bra: pc_[t] = x.target; return;
      case op::ret: case op::exit: exit_thread(t); return;
      case op::bar: case op::barrier: return barrier(t, x, pc);
      case op::bar_warp_sync: case op::shfl: case op::vote: case op::match: case op::redux: case op::mma:
      case op::ldmatrix: case op::wmma_load: case op::wmma_store: case op::wmma_mma:
        return arrive_warp(t, x, pc);
      default: break;
    }
    execute(t, x, pc);  // errors inside name this instruction: pc_[t] still points at it
    pc_[t] = pc + 1;
  }

  void execute(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    using op = ptx::opcode;
    switch (x.op) {
      case op::trap: case op::brkpt: fail_at(error_kind::trap, t, "the kernel executed trap");
      case op::membar: case op::fence: case op::prefetch: case op::prefetchu: case op::nanosleep: case op::pmevent:
        return;
      case op::mov: return mov(t, x);
      case op::cvta: return cvta(t, x);
      case op::cvt: return cvt(t, x);
      case op::ld: case op::ldu: return load(t, x, pc);
      case op::st: return store(t, x, pc);
      case op::atom: case op::red: return atomic(t, x, pc);
      case op::cp_async: return cp_async(t, x, pc);
      case op::cp_async_commit_group: ++copy_group_[t]; return;
      case op::cp_async_wait_group: return cp_async_wait(t, to_bits(read(t, x.ops[0]), t), false);
      case op::cp_async_wait_all: return cp_async_wait(t, 0, true);
      case op::setp: return setp(t, x);
      case op::selp: return selp(t, x);
      case op::set: return set(t, x);
      case op::activemask: return write(t, x.ops[0], value::of_bits(live_lanes(t / warp_size)));
      case op::lifted: return lifted(t, x);
      default: break;
    }
    if (is_float(x.type) && x.type != vtype::tf32) return float_op(t, x);
    return integer_op(t, x);
  }

  static bool is_collective(ptx::opcode o) {
    using op = ptx::opcode;
    return o == op::shfl || o == op::vote || o == op::match || o == op::redux || o == op::mma ||
           o == op::ldmatrix || o == op::wmma_load || o == op::wmma_store || o == op::wmma_mma ||
           o == op::bar_warp_sync;
  }
  static bool tolerates_unknown(ptx::opcode o) {
    // Matrix instructions spell shapes and layouts we decode from the flags we know; their extra
    // spellings (.m8n8, .m16n8k16, .row/.col, .f32 kinds) are checked when executed.
    using op = ptx::opcode;
    return o == op::mma || o == op::wmma_load || o == op::wmma_store || o == op::wmma_mma || o == op::ldmatrix ||
           o == op::cp_async;
  }

  // `@p mov d, a` with p an undecided comparison: d = p ? a : d, which is max/min when the
  // comparison is between a and the old d (the running max of a loop).
  void guarded_move(std::uint32_t t, const xinstr& x, const value& g) {
    value a = read(t, x.ops[1]);
    value old = reg(t, x.ops[0].reg);
    if (old.t == value::tag::empty) fail_at(error_kind::uninitialized, t, "guarded move into an unwritten register");
    auto r = x.guard_negated ? choose(t, old, a, g) : choose(t, a, old, g);
    write(t, x.ops[0], r);
  }

  // p ? a : b for an undecided comparison p = (u cmp v): max/min when {a, b} = {u, v}.
  value choose(std::uint32_t t, const value& a, const value& b, const value& p) {
    rkind k = p.k;
    real ra = to_real(a, k, t), rb = to_real(b, k, t);
    bool negated = p.bits & 1;
    cmp_op c = p.cmp;
    bool greater = c == cmp_op::gt || c == cmp_op::ge || c == cmp_op::gtu || c == cmp_op::geu;
    bool less = c == cmp_op::lt || c == cmp_op::le || c == cmp_op::ltu || c == cmp_op::leu;
    if (negated) std::swap(greater, less);
    if (greater || less) {
      real xs[2] = {ra, rb};
      if (d_.same(ra, p.r) && d_.same(rb, p.r2))  // u > v ? u : v
        return value::of_real(guarded([&] { return d_.arith(greater ? aop::max : aop::min, xs, k, {}); }, t), k);
      if (d_.same(ra, p.r2) && d_.same(rb, p.r))  // u > v ? v : u
        return value::of_real(guarded([&] { return d_.arith(greater ? aop::min : aop::max, xs, k, {}); }, t), k);
    }
    fail_at(error_kind::not_structured, t,
            "a selection on a comparison of symbolic values that is not max/min of the compared values (" +
                d_.show(p.r) + " vs " + d_.show(p.r2) + ")");
  }

  void mov(std::uint32_t t, const xinstr& x) {
    const xoperand& dst = x.ops[0];
    const xoperand& src = x.ops[1];
    if (src.k == xoperand::kind::vector) {  // pack {a, b} into one wider register
      std::vector<value> parts;
      for (auto& e : src.elems) parts.push_back(read(t, e));
      return write(t, dst, pack(t, parts, bytes(x.type) / static_cast<std::uint32_t>(parts.size())));
    }
    if (dst.k == xoperand::kind::vector) {  // unpack
      value v = read(t, src);
      auto n = static_cast<std::uint32_t>(dst.elems.size());
      for (std::uint32_t i = 0; i < n; ++i) write(t, dst.elems[i], piece(t, v, i, bytes(x.type) / n));
      return;
    }
    value v = read(t, src);
    if (v.t == value::tag::bits && x.type != vtype::pred) v.bits &= mask_of(x.type);
    write(t, dst, std::move(v));
  }

  // Two 16-bit values into one 32-bit register, or concrete pieces into wider bits.
  value pack(std::uint32_t t, const std::vector<value>& parts, std::uint32_t width) {
    bool all_bits = true;
    for (auto& p : parts) all_bits = all_bits && !is_symbolic(p);
    if (all_bits) {
      std::uint64_t bits = 0;
      for (std::size_t i = 0; i < parts.size(); ++i)
        bits |= (to_bits(parts[i], t) & (width >= 8 ? ~0ull : ((1ull << (8 * width)) - 1))) << (8 * width * i);
      return value::of_bits(bits);
    }
    if (parts.size() == 2 && width == 2) {
      rkind k = parts[0].t == value::tag::real ? parts[0].k : parts[1].k;
      return value::of_packed(to_real(parts[0], k, t), to_real(parts[1], k, t), k);
    }
    fail_at(error_kind::not_structured, t, "packing symbolic values other than two halves");
  }
  // Piece i of width w bytes of a value.
  value piece(std::uint32_t t, const value& v, std::uint32_t i, std::uint32_t w) {
    if (v.t == value::tag::packed && w == 2) return value::of_real(i == 0 ? v.r : v.r2, v.k);
    std::uint64_t bits = to_bits(v, t);
    std::uint64_t m = w >= 8 ? ~0ull : (1ull << (8 * w)) - 1;
    return value::of_bits((bits >> (8 * w * i)) & m);
  }

  void cvta(std::uint32_t t, const xinstr& x) {
    value in = read(t, x.ops[1]);
    std::uint64_t a = to_bits(in, t);
    std::uint64_t window = 0;
    if (x.space == ptx::state_space::shared) window = address::shared_window;
    else if (x.space == ptx::state_space::local) window = address::local_window;
    if (x.has(flag::to)) a -= window;
    else a += window;
    value out = value::of_bits(a & mask_of(x.type));
    out.provenance = in.provenance;
    write(t, x.ops[0], out);
  }

  void cvt(std::uint32_t t, const xinstr& x) {
    if (x.types.size() < 2) fail_at(error_kind::unsupported, t, "cvt without two types");
    vtype to = x.types[x.types.size() - 2], from = x.types.back();
    float_mode m = mode_of(x);
    if (is_packed(to)) {  // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
      rkind k = *rkind_of(to);
      real hi = guarded([&] { return d_.convert(to_real(read(t, x.ops[1]), rkind::f32, t), rkind::f32, k, m); }, t);
      real lo = guarded([&] { return d_.convert(to_real(read(t, x.ops[2]), rkind::f32, t), rkind::f32, k, m); }, t);
      return write(t, x.ops[0], value::of_packed(lo, hi, k));
    }
    value a = read(t, x.ops[1]);
    auto kt = rkind_of(to), kf = rkind_of(from);
    if (kt && kf) {  // float -> float
      real r = to_real(a, *kf, t);
      return write(t, x.ops[0], value::of_real(guarded([&] { return d_.convert(r, *kf, *kt, m); }, t), *kt));
    }
    if (kt) {  // integer -> float
      real r = a.t == value::tag::real && a.k == rkind::integer
                   ? a.r
                   : d_.from_int(is_signed(from) ? sext(to_bits(a, t), from)
                                                 : static_cast<std::int64_t>(to_bits(a, t) & mask_of(from)));
      return write(t, x.ops[0], value::of_real(guarded([&] { return d_.convert(r, rkind::integer, *kt, m); }, t), *kt));
    }
    if (kf) {  // float -> integer (saturating, NaN to 0, as PTX)
      real r = to_real(a, *kf, t);
      if (m.round == rounding::rn) m.round = rounding::rni;
      real i = guarded([&] { return d_.convert(r, *kf, rkind::integer, m); }, t);
      auto v = d_.integer(i);
      if (!v) {
        if constexpr (D::symbolic)
          if (d_.float_bits(r, *kf) == std::nullopt)
            fail_at(error_kind::not_structured, t, "conversion of symbolic data to an integer");
        v = saturate_infinite(r, *kf);
        if (!v) fail_at(error_kind::not_structured, t, "conversion of a non-finite value to an integer");
      }
      return write(t, x.ops[0], value::of_bits(static_cast<std::uint64_t>(clamp(*v, to)) & mask_of(to)));
    }
    // integer -> integer
    if (a.t == value::tag::real && a.k == rkind::integer && is_symbolic(a)) return write(t, x.ops[0], a);  // exact data
    std::uint64_t bits = to_bits(a, t);
    std::int64_t v = is_signed(from) ? sext(bits, from) : static_cast<std::int64_t>(bits & mask_of(from));
    if (x.has(flag::sat)) v = clamp(v, to);
    std::uint64_t out = static_cast<std::uint64_t>(v) & mask_of(to);
    if (is_signed(to)) out = static_cast<std::uint64_t>(sext(out, to));
    value c = value::of_bits(out);
    c.provenance = a.t == value::tag::bits ? a.provenance : 0;
    write(t, x.ops[0], c);
  }
  // A float too large for an integer converts to the integer type's extreme (clamp saturates).
  std::optional<std::int64_t> saturate_infinite(const real& r, rkind k) {
    auto bits = d_.float_bits(r, k);
    if (!bits) return std::nullopt;
    double v = floats::decode(*bits, k);
    if (std::isnan(v)) return 0;
    return v < 0 ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  }
  static std::int64_t clamp(std::int64_t v, vtype to) {
    std::uint32_t b = bytes(to);
    if (b >= 8) return is_signed(to) ? v : std::max<std::int64_t>(v, 0);
    if (is_signed(to)) {
      std::int64_t hi = (std::int64_t{1} << (8 * b - 1)) - 1, lo = -hi - 1;
      return std::clamp(v, lo, hi);
    }
    std::int64_t hi = (std::int64_t{1} << (8 * b)) - 1;
    return std::clamp<std::int64_t>(v, 0, hi);
  }

  // ---- comparisons -------------------------------------------------------------------------
  // a cmp b as a cell: concrete bits, or an undecided predicate of two symbolic reals.
  value compare(std::uint32_t t, const xinstr& x, const value& a, const value& b) {
    if (!x.has_cmp) fail_at(error_kind::unsupported, t, "comparison without an operator");
    if (auto k = rkind_of(x.type)) {
      real ra = to_real(a, *k, t), rb = to_real(b, *k, t);
      if (auto r = d_.compare(x.cmp, ra, rb, *k)) return value::of_bits(*r);
      value p;
      p.t = value::tag::predicate;
      p.k = *k;
      p.cmp = x.cmp;
      p.r = ra;
      p.r2 = rb;
      return p;
    }
    if (is_symbolic(a) || is_symbolic(b)) {
      rkind k = rkind::integer;
      real ra = to_real(a, k, t), rb = to_real(b, k, t);
      if (auto r = d_.compare(x.cmp, ra, rb, k)) return value::of_bits(*r);
      fail_at(error_kind::not_structured, t, "a comparison of symbolic integer data");
    }
    std::uint64_t ua = to_bits(a, t) & mask_of(x.type), ub = to_bits(b, t) & mask_of(x.type);
    std::int64_t sa = sext(ua, x.type), sb = sext(ub, x.type);
    bool s = is_signed(x.type);
    switch (x.cmp) {
      case cmp_op::eq: return value::of_bits(ua == ub);
      case cmp_op::ne: return value::of_bits(ua != ub);
      case cmp_op::lt: return value::of_bits(s ? sa < sb : ua < ub);
      case cmp_op::le: return value::of_bits(s ? sa <= sb : ua <= ub);
      case cmp_op::gt: return value::of_bits(s ? sa > sb : ua > ub);
      case cmp_op::ge: return value::of_bits(s ? sa >= sb : ua >= ub);
      case cmp_op::lo: return value::of_bits(ua < ub);
      case cmp_op::ls: return value::of_bits(ua <= ub);
      case cmp_op::hi: return value::of_bits(ua > ub);
      case cmp_op::hs: return value::of_bits(ua >= ub);
      default: fail_at(error_kind::unsupported, t, "this comparison on integers");
    }
  }

  value combine(std::uint32_t t, const xinstr& x, value p, const value& c) {
    if (!(x.has(flag::and_) || x.has(flag::or_) || x.has(flag::xor_))) return p;
    bool a = truth(t, p), b = truth(t, c);
    if (x.has(flag::and_)) return value::of_bits(a && b);
    if (x.has(flag::or_)) return value::of_bits(a || b);
    return value::of_bits(a != b);
  }

  void setp(std::uint32_t t, const xinstr& x) {
    value p = compare(t, x, read(t, x.ops[1]), read(t, x.ops[2]));
    if (x.ops.size() > 3) p = combine(t, x, p, read(t, x.ops[3]));
    const xoperand& d = x.ops[0];
    if (d.k == xoperand::kind::vector) {  // p|q: q is the complement
      write(t, d.elems[0], p);
      value q = p;
      if (q.t == value::tag::bits) q.bits = !q.bits;
      else q.bits ^= 1;
      write(t, d.elems[1], q);
      return;
    }
    write(t, d, p);
  }

  void set(std::uint32_t t, const xinstr& x) {
    if (x.types.size() < 2) fail_at(error_kind::unsupported, t, "set without two types");
    xinstr cmp_x = x;
    cmp_x.type = x.types.back();
    value p = compare(t, cmp_x, read(t, x.ops[1]), read(t, x.ops[2]));
    if (x.ops.size() > 3) p = combine(t, x, p, read(t, x.ops[3]));
    bool r = truth(t, p);
    vtype to = x.types[x.types.size() - 2];
    if (to == vtype::f32) return write(t, x.ops[0], value::of_bits(r ? 0x3f800000u : 0));
    write(t, x.ops[0], value::of_bits(r ? mask_of(to) : 0));
  }

  void selp(std::uint32_t t, const xinstr& x) {
    value p = read(t, x.ops[3]);
    if (p.t == value::tag::predicate) return write(t, x.ops[0], choose(t, read(t, x.ops[1]), read(t, x.ops[2]), p));
    write(t, x.ops[0], truth(t, p) ? read(t, x.ops[1]) : read(t, x.ops[2]));
  }

  // ---- arithmetic --------------------------------------------------------------------------
  void float_op(std::uint32_t t, const xinstr& x) {
    using op = ptx::opcode;
    aop o;
    switch (x.op) {
      case op::add: o = aop::add; break;
      case op::sub: o = aop::sub; break;
      case op::mul: o = aop::mul; break;
      case op::fma: case op::mad: o = aop::fma; break;
      case op::div: o = aop::div; break;
      case op::neg: o = aop::neg; break;
      case op::abs: o = aop::abs; break;
      case op::min: o = aop::min; break;
      case op::max: o = aop::max; break;
      case op::rcp: o = aop::rcp; break;
      case op::sqrt: o = aop::sqrt; break;
      case op::rsqrt: o = aop::rsqrt; break;
      case op::ex2: o = aop::exp2; break;
      case op::lg2: o = aop::log2; break;
      case op::tanh: o = aop::tanh; break;
      case op::sin: o = aop::sin; break;
      case op::cos: o = aop::cos; break;
      default: fail_at(error_kind::unsupported, t, "this floating-point instruction");
    }
    if (x.ops.size() > 4) fail_at(error_kind::unsupported, t, "three-input min/max");
    float_mode m = mode_of(x);
    rkind k = *rkind_of(x.type);
    std::size_t n = x.ops.size() - 1;
    if (is_packed(x.type)) {  // elementwise on both halves
      real lo[3], hi[3];
      for (std::size_t i = 0; i < n; ++i) {
        value v = read(t, x.ops[i + 1]);
        if (v.t == value::tag::packed) {
          lo[i] = v.r;
          hi[i] = v.r2;
        } else {
          std::uint64_t b = to_bits(v, t);
          lo[i] = guarded([&] { return d_.from_float(b & 0xffff, k); }, t);
          hi[i] = guarded([&] { return d_.from_float(b >> 16 & 0xffff, k); }, t);
        }
      }
      real rl = guarded([&] { return d_.arith(o, std::span<const real>(lo, n), k, m); }, t);
      real rh = guarded([&] { return d_.arith(o, std::span<const real>(hi, n), k, m); }, t);
      return write(t, x.ops[0], value::of_packed(rl, rh, k));
    }
    real args[3];
    for (std::size_t i = 0; i < n; ++i) args[i] = to_real(read(t, x.ops[i + 1]), k, t);
    real r = guarded([&] { return d_.arith(o, std::span<const real>(args, n), k, m); }, t);
    write(t, x.ops[0], value::of_real(std::move(r), k));
  }

  void lifted(std::uint32_t t, const xinstr& x) {
    aop o = aop::exp;
    switch (x.lifted_fn) {
      case ptx::real_function::exp: o = aop::exp; break;
      case ptx::real_function::exp2: o = aop::exp2; break;
      case ptx::real_function::log: o = aop::log; break;
      case ptx::real_function::log2: o = aop::log2; break;
      case ptx::real_function::sqrt: o = aop::sqrt; break;
      case ptx::real_function::rsqrt: o = aop::rsqrt; break;
      case ptx::real_function::rcp: o = aop::rcp; break;
      case ptx::real_function::div: o = aop::div; break;
      case ptx::real_function::tanh: o = aop::tanh; break;
    }
    rkind k = rkind_of(x.type).value_or(rkind::f32);
    bool adds = x.has(flag::add);  // fn(inputs...) + the last operand (an idiom fused with an add)
    std::size_t n = x.ops.size() - 1 - (adds ? 1 : 0);
    if (n < 1 || n > 2) fail_at(error_kind::unsupported, t, "a lifted function with this many operands");
    real args[2];
    for (std::size_t i = 0; i < n; ++i) args[i] = to_real(read(t, x.ops[i + 1]), k, t);
    real r = guarded([&] { return d_.arith(o, std::span<const real>(args, n), k, float_mode{}); }, t);
    if (adds) {
      real sum[2] = {r, to_real(read(t, x.ops.back()), k, t)};
      r = guarded([&] { return d_.arith(aop::add, sum, k, float_mode{}); }, t);
    }
    write(t, x.ops[0], value::of_real(std::move(r), k));
  }

  // Integer arithmetic that integer *data* may take part in (symbolic in a symbolic run).
  std::optional<aop> data_op(const xinstr& x) const {
    using op = ptx::opcode;
    switch (x.op) {
      case op::add: return aop::add;
      case op::sub: return aop::sub;
      case op::mul: return x.has(flag::hi) ? std::nullopt : std::optional(aop::mul);
      case op::mad: return x.has(flag::hi) || x.has(flag::cc) ? std::nullopt : std::optional(aop::fma);
      case op::neg: return aop::neg;
      case op::abs: return aop::abs;
      case op::min: return aop::min;
      case op::max: return aop::max;
      default: return std::nullopt;
    }
  }

  void integer_op(std::uint32_t t, const xinstr& x) {
    using op = ptx::opcode;
    std::size_t n = x.ops.size() - 1;
    value in[5];
    for (std::size_t i = 0; i < n && i < 5; ++i) in[i] = read(t, x.ops[i + 1]);
    if constexpr (D::symbolic) {
      bool symbolic = false;
      for (std::size_t i = 0; i < n && i < 5; ++i) symbolic = symbolic || is_symbolic(in[i]);
      if (symbolic) {
        auto o = data_op(x);
        if (!o || x.op == op::bfe)
          fail_at(error_kind::not_structured, t,
                  std::string("integer instruction '") + std::string(ptx::name(x.op)) + "' on symbolic data");
        real args[3];
        for (std::size_t i = 0; i < n && i < 3; ++i) args[i] = to_real(in[i], rkind::integer, t);
        real r = guarded([&] { return d_.arith(*o, std::span<const real>(args, std::min<std::size_t>(n, 3)), rkind::integer, {}); }, t);
        return write(t, x.ops[0], value::of_real(r, rkind::integer));
      }
    }
    std::uint64_t a = n > 0 ? to_bits(in[0], t) : 0, b = n > 1 ? to_bits(in[1], t) : 0, c = n > 2 ? to_bits(in[2], t) : 0;
    vtype ty = x.type;
    std::uint64_t m = mask_of(ty);
    bool s = is_signed(ty);
    std::int64_t sa = sext(a, ty), sb = sext(b, ty);
    std::uint64_t ua = a & m, ub = b & m;
    auto wide_type = [&] {
      switch (ty) {
        case vtype::s16: return vtype::s32;
        case vtype::u16: return vtype::u32;
        case vtype::s32: return vtype::s64;
        default: return vtype::u64;
      }
    };
    auto product = [&](std::uint64_t& lo, std::uint64_t& hi) {  // full 2w-bit product
      if (bytes(ty) <= 4) {
        std::uint64_t p = s ? static_cast<std::uint64_t>(sa * sb) : ua * ub;
        lo = p & m;
        hi = (p >> (8 * bytes(ty))) & m;
        if (x.has(flag::wide)) lo = p;
      } else {
        __extension__ using u128 = unsigned __int128;
        __extension__ using i128 = __int128;
        u128 p = s ? static_cast<u128>(static_cast<i128>(sa) * sb) : static_cast<u128>(ua) * ub;
        lo = static_cast<std::uint64_t>(p);
        hi = static_cast<std::uint64_t>(p >> 64);
      }
    };
    std::uint64_t r = 0;
    vtype out = ty;
    switch (x.op) {
      case op::add: r = a + b; break;
      case op::sub: r = a - b; break;
      case op::mul: {
        std::uint64_t lo, hi;
        product(lo, hi);
        r = x.has(flag::hi) ? hi : lo;
        if (x.has(flag::wide)) out = wide_type();
        break;
      }
      case op::mad: {
        std::uint64_t lo, hi;
        product(lo, hi);
        r = (x.has(flag::hi) ? hi : lo) + c;
        if (x.has(flag::wide)) out = wide_type();
        break;
      }
      case op::mul24: r = static_cast<std::uint64_t>(sext(a, vtype::s32) * sext(b, vtype::s32)); break;
      case op::mad24: r = static_cast<std::uint64_t>(sext(a, vtype::s32) * sext(b, vtype::s32)) + c; break;
      case op::sad: r = (s ? static_cast<std::uint64_t>(std::abs(sa - sb)) : (ua > ub ? ua - ub : ub - ua)) + c; break;
      case op::div:
        if (ub == 0) fail_at(error_kind::domain, t, "integer division by zero");
        r = s ? static_cast<std::uint64_t>(sa / sb) : ua / ub;
        break;
      case op::rem:
        if (ub == 0) fail_at(error_kind::domain, t, "integer remainder by zero");
        r = s ? static_cast<std::uint64_t>(sa % sb) : ua % ub;
        break;
      case op::abs: r = static_cast<std::uint64_t>(sa < 0 ? -sa : sa); break;
      case op::neg: r = static_cast<std::uint64_t>(-sa); break;
      case op::min: r = s ? static_cast<std::uint64_t>(std::min(sa, sb)) : std::min(ua, ub); break;
      case op::max: r = s ? static_cast<std::uint64_t>(std::max(sa, sb)) : std::max(ua, ub); break;
      case op::and_: r = a & b; break;
      case op::or_: r = a | b; break;
      case op::xor_: r = a ^ b; break;
      case op::not_: r = ~a; break;
      case op::cnot: r = ua == 0; break;
      case op::shl: r = (b & 0xffffffff) >= 8 * bytes(ty) ? 0 : a << (b & 0xffffffff); break;
      case op::shr: {
        std::uint64_t sh = std::min<std::uint64_t>(b & 0xffffffff, 8 * bytes(ty));
        if (s) r = static_cast<std::uint64_t>(sh >= 64 ? (sa < 0 ? -1 : 0) : sa >> std::min<std::uint64_t>(sh, 63));
        else r = sh >= 64 ? 0 : ua >> sh;
        break;
      }
      case op::popc: r = static_cast<std::uint64_t>(std::popcount(ua)); out = vtype::u32; break;
      case op::clz: r = static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - 8 * static_cast<int>(bytes(ty)))); out = vtype::u32; break;
      case op::brev: {
        std::uint64_t v = 0;
        unsigned w = 8 * bytes(ty);
        for (unsigned i = 0; i < w; ++i) v |= ((ua >> i) & 1) << (w - 1 - i);
        r = v;
        break;
      }
      case op::bfind: {
        unsigned w = 8 * bytes(ty);
        std::uint64_t v = s && sa < 0 ? ~ua & m : ua;
        r = v == 0 ? 0xffffffffu : static_cast<std::uint64_t>(63 - std::countl_zero(v));
        if (x.has(flag::shiftamt) && v) r = w - 1 - r;
        out = vtype::u32;
        break;
      }
      case op::bfe: {
        unsigned pos = static_cast<unsigned>(b & 0xff), len = static_cast<unsigned>(c & 0xff), w = 8 * bytes(ty);
        std::uint64_t v = 0;
        bool sign = s && len > 0 && ((ua >> std::min(pos + len - 1, w - 1)) & 1);
        for (unsigned i = 0; i < w; ++i) {
          bool bit = i < len ? (pos + i < w ? (ua >> (pos + i)) & 1 : sign) : (s ? sign : 0);
          v |= std::uint64_t{bit} << i;
        }
        r = v;
        break;
      }
      case op::bfi: {
        std::uint64_t d4 = n > 3 ? to_bits(in[3], t) : 0;
        unsigned pos = static_cast<unsigned>(c & 0xff), len = static_cast<unsigned>(d4 & 0xff), w = 8 * bytes(ty);
        std::uint64_t v = ub;
        for (unsigned i = 0; i < len && pos + i < w; ++i) {
          v &= ~(std::uint64_t{1} << (pos + i));
          v |= ((ua >> i) & 1) << (pos + i);
        }
        r = v;
        break;
      }
      case op::prmt: {
        if (x.has(flag::f4e) || n != 3) fail_at(error_kind::unsupported, t, "prmt mode");
        std::uint64_t bytes8 = (ua & 0xffffffff) | ((ub & 0xffffffff) << 32);
        std::uint64_t v = 0;
        for (unsigned i = 0; i < 4; ++i) {
          unsigned sel = static_cast<unsigned>((c >> (4 * i)) & 0xf);
          std::uint64_t byte = (bytes8 >> (8 * (sel & 7))) & 0xff;
          if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
          v |= byte << (8 * i);
        }
        r = v;
        break;
      }
      case op::lop3: {
        std::uint64_t lut = to_bits(in[3], t) & 0xff, v = 0;
        for (unsigned i = 0; i < 8 * bytes(ty); ++i) {
          unsigned idx = static_cast<unsigned>(((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1));
          v |= ((lut >> idx) & 1) << i;
        }
        r = v;
        break;
      }
      case op::shf: {
        unsigned sh = static_cast<unsigned>(c & 0xffffffff);
        sh = x.has(flag::wrap) ? sh & 31 : std::min(sh, 32u);
        std::uint64_t both = (ub & 0xffffffff) << 32 | (ua & 0xffffffff);
        r = x.has(flag::l) ? (both << sh) >> 32 : both >> sh;
        break;
      }
      default: fail_at(error_kind::unsupported, t, "this integer instruction");
    }
    if (ty == vtype::pred) return write(t, x.ops[0], value::of_bits(r & 1));
    r &= mask_of(out);
    if (is_signed(out)) r = static_cast<std::uint64_t>(sext(r, out));
    value result = value::of_bits(r);
    // Address arithmetic keeps the array the address came from: base + offset, base - offset,
    // and mad's addend (mad.wide idx, 4, base).
    std::uint32_t pa = in[0].t == value::tag::bits ? in[0].provenance : 0;
    std::uint32_t pb = n > 1 && in[1].t == value::tag::bits ? in[1].provenance : 0;
    std::uint32_t pc = n > 2 && in[2].t == value::tag::bits ? in[2].provenance : 0;
    if (x.op == op::add) result.provenance = pa && pb ? 0 : pa + pb;
    else if (x.op == op::sub) result.provenance = pb ? 0 : pa;
    else if (x.op == op::mad && !x.has(flag::hi)) result.provenance = pc;
    write(t, x.ops[0], result);
  }

  // ---- memory ------------------------------------------------------------------------------
  struct place {
    region<real>* r;
    std::uint32_t index;  // region index (observed), or ~0u for local memory
    std::uint64_t offset;
  };

  // An address operand's value and the array it was derived from (plus one; 0: unknown).
  struct address_value {
    std::uint64_t at = 0;
    std::uint32_t provenance = 0;
  };
  address_value effective_address(std::uint32_t t, const xoperand& a) {
    if (a.k != xoperand::kind::address) fail_at(error_kind::unsupported, t, "memory operand is not an address");
    if (a.base_symbol) {
      auto it = symbols_.find(a.sym);
      if (it != symbols_.end() && it->second.k == symbol::kind::param) return {a.imm, 0};  // offset in the parameter
      if (!a.sym) return {a.imm, 0};
      return {symbol_address(t, a.sym, a.imm), symbol_provenance(a.sym)};
    }
    const value& base = reg(t, a.reg);
    return {to_bits(base, t) + a.imm, base.t == value::tag::bits ? base.provenance : 0};
  }

  place locate(std::uint32_t t, ptx::state_space space, address_value where_to, std::uint32_t width) {
    std::uint64_t addr = where_to.at;
    if (space == ptx::state_space::generic) {
      if (addr >= address::local_window && addr < address::local_window + address::window_size) {
        space = ptx::state_space::local;
        addr -= address::local_window;
      } else if (addr >= address::shared_window && addr < address::shared_window + address::window_size) {
        space = ptx::state_space::shared;
        addr -= address::shared_window;
      } else {
        space = ptx::state_space::global;
      }
    }
    if (space == ptx::state_space::local) {
      if (addr + width > local_top_)
        fail_at(error_kind::out_of_bounds, t, "local memory access at offset " + std::to_string(addr) + " outside the " +
                                                  std::to_string(local_top_) + "-byte local depot");
      auto& lr = locals_[t];
      if (!lr) {
        lr = std::make_unique<region<real>>();
        lr->space = memory_space::local;
        lr->name = "local";
        lr->bytes = local_top_;
      }
      return place{lr.get(), ~0u, addr};
    }
    const auto& order = space == ptx::state_space::shared ? shared_order_ : global_order_;
    // The region whose base is the largest not above addr.
    auto it = std::upper_bound(order.begin(), order.end(), addr,
                               [&](std::uint64_t a, std::uint32_t index) { return a < regions_[index].base; });
    std::uint32_t from = where_to.provenance;
    auto past_end = [&](const region<real>& r, std::int64_t off, const std::string& lands) {
      std::uint32_t unit = r.element_bytes > 1 ? r.element_bytes : std::max<std::uint32_t>(width, 1);
      fail_at(error_kind::out_of_bounds, t,
              std::string(space == ptx::state_space::shared ? "shared" : "global") + " access to " + r.name + "[" +
                  std::to_string(off / static_cast<std::int64_t>(unit)) + "] (byte " + std::to_string(off) + ", " +
                  std::to_string(width) + " bytes) outside the array (" + std::to_string(r.bytes / unit) +
                  " elements of " + std::to_string(unit) + " bytes)" + lands);
    };
    if (it != order.begin()) {
      std::uint32_t i = *(it - 1);
      region<real>& r = regions_[i];
      if (addr - r.base + width <= r.bytes) {
        // In bounds of r; but an address computed from another array is still out of that one's
        // bounds, even where the GPU tolerates it because the arrays are adjacent.
        if (from && from - 1 != i && from - 1 < regions_.size() && regions_[from - 1].space == r.space)
          past_end(regions_[from - 1], static_cast<std::int64_t>(addr - regions_[from - 1].base),
                   "; the address lies in " + r.name);
        return place{&r, i, addr - r.base};
      }
      if (addr - r.base < r.bytes + 4096) past_end(r, static_cast<std::int64_t>(addr - r.base), "");
    }
    if (from && from - 1 < regions_.size())
      past_end(regions_[from - 1], static_cast<std::int64_t>(addr - regions_[from - 1].base), "");
    fail_at(error_kind::out_of_bounds, t,
            std::string(space == ptx::state_space::shared ? "shared" : "global") + " access at address 0x" + hex(addr) +
                " is in no " + (space == ptx::state_space::shared ? "shared array" : "tensor"));
  }

  void observe(std::uint32_t t, const place& p, std::uint32_t width, access_kind kind, std::uint32_t pc,
               value_identity identity = {}, atomic_op op = atomic_op::none) {
    if (p.index == ~0u) return;
    if (p.r->space != memory_space::global && p.r->space != memory_space::shared) return;
    o_.on_access(access{t, p.index, p.offset, width, kind, pc, identity, op});
  }

  // Exact (observer.hpp): the bits themselves, the domain's exact identity, or a sequence number.
  value_identity identity_of(const value& v) {
    auto of_real = [&](const real& r) {
      auto id = d_.identity(r);
      return id ? value_identity{value_identity::kind::real, *id} : value_identity{};
    };
    switch (v.t) {
      case value::tag::bits: return {value_identity::kind::bits, v.bits};
      case value::tag::real: return of_real(v.r);
      case value::tag::packed: {
        value_identity halves[2] = {of_real(v.r), of_real(v.r2)};
        return sequences_.of(halves);
      }
      default: return {};
    }
  }

  // Reads [offset, offset + width) of a region as one cell.
  value load_cell(std::uint32_t t, region<real>& r, std::uint64_t offset, std::uint32_t width) {
    if (const value* c = r.exact(offset, width)) return *c;
    return load_pieces(t, r, offset, width);
  }
  [[gnu::noinline]] value load_pieces(std::uint32_t t, region<real>& r, std::uint64_t offset, std::uint32_t width) {
    bool any_unwritten = false;
    for (std::uint32_t b = 0; b < width; ++b) any_unwritten = any_unwritten || !r.slot(offset + b);
    if (any_unwritten) {
      if (!r.inputs) {
        if (r.space == memory_space::constant) return value::of_bits(0);
        std::string what = r.space == memory_space::global ? "output tensor " + r.name + " before any thread writes it"
                           : r.space == memory_space::shared ? "uninitialized shared memory " + r.name
                                                             : std::string("uninitialized local memory");
        fail_at(error_kind::uninitialized, t,
                "read of " + what + " (element " + std::to_string(offset / r.element_bytes) + ", byte " +
                    std::to_string(offset) + ")");
      }
      // Unwritten elements of an input tensor are inputs: materialize the ones the read touches.
      std::uint64_t first = offset / r.element_bytes, last = (offset + width - 1) / r.element_bytes;
      for (std::uint64_t e = first; e <= last; ++e) {
        bool fresh = true;
        for (std::uint32_t b = 0; b < r.element_bytes; ++b) fresh = fresh && !r.slot(e * r.element_bytes + b);
        if (!fresh) continue;
        input_ref in{r.tensor, r.name, e, r.shape, r.kind};
        r.store(e * r.element_bytes, r.element_bytes, value::of_real(guarded([&] { return d_.input(in); }, t), r.kind));
      }
      if (const value* c = r.exact(offset, width)) return *c;
    }
    return assemble(r, offset, width, t, 1);
  }

  // A read that covers pieces of stored values: two halves make a packed word; a half of a packed
  // word is a half; otherwise concrete bytes are put together.
  value assemble(region<real>& r, std::uint64_t offset, std::uint32_t width, std::uint32_t t, int in_thread) {
    const auto& first = r.value(r.slot(offset));
    if (width == 4 && first.width == 2 && first.offset == offset) {
      std::uint32_t s2 = r.slot(offset + 2);
      if (s2) {
        const auto& second = r.value(s2);
        if (second.offset == offset + 2 && second.width == 2 && first.value.t == value::tag::real &&
            second.value.t == value::tag::real && first.value.k != rkind::integer)
          return value::of_packed(first.value.r, second.value.r, first.value.k);
      }
    }
    if (width == 2 && first.width == 4 && first.value.t == value::tag::packed && (offset - first.offset) % 2 == 0)
      return value::of_real(offset == first.offset ? first.value.r : first.value.r2, first.value.k);
    std::uint64_t bits = 0;
    for (std::uint32_t b = 0; b < width; ++b) {
      std::uint32_t s = r.slot(offset + b);
      if (!s) fail_at(error_kind::uninitialized, t, "read of partly written memory in " + r.name);
      const auto& sv = r.value(s);
      if (in_thread == 0 && is_symbolic(sv.value))
        throw run_failure(run_error{error_kind::not_structured, 0, 0, false,
                                    r.name + ": an output element holds pieces of symbolic values"});
      std::uint64_t vb = to_bits(sv.value, t);
      bits |= ((vb >> (8 * (offset + b - sv.offset))) & 0xff) << (8 * b);
    }
    return value::of_bits(bits);
  }

  void check_alignment(std::uint32_t t, std::uint64_t addr, std::uint32_t width) {
    if (width > 1 && addr % width != 0)
      fail_at(error_kind::misaligned, t,
              "a " + std::to_string(width) + "-byte access at address 0x" + hex(addr) + " is not aligned to its width");
  }

  std::uint32_t access_width(const xinstr& x) const { return bytes(x.type); }

  void load(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    const xoperand& dst = x.ops[0];
    address_value addr = effective_address(t, x.ops[1]);
    std::uint32_t w = access_width(x);
    std::uint32_t n = dst.k == xoperand::kind::vector ? static_cast<std::uint32_t>(dst.elems.size()) : 1;
    if (x.space == ptx::state_space::param) {
      const xoperand& a = x.ops[1];
      auto it = symbols_.find(a.sym);
      if (!a.base_symbol || it == symbols_.end() || it->second.k != symbol::kind::param || a.imm != 0 || n != 1)
        fail_at(error_kind::unsupported, t, "a parameter read other than a whole scalar parameter");
      return write(t, dst, params_[it->second.index]);
    }
    check_alignment(t, addr.at, w * n);
    place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w * n);
    observe(t, p, w * n, access_kind::read, pc);
    for (std::uint32_t i = 0; i < n; ++i) {
      value v = load_cell(t, *p.r, p.offset + std::uint64_t{i} * w, w);
      if (v.t == value::tag::bits && is_signed(x.type)) v.bits = static_cast<std::uint64_t>(sext(v.bits, x.type));
      else if (v.t == value::tag::bits) v.bits &= mask_of(x.type);
      write(t, n == 1 ? dst : dst.elems[i], std::move(v));
    }
  }

  void store(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    const xoperand& src = x.ops[1];
    address_value addr = effective_address(t, x.ops[0]);
    std::uint32_t w = access_width(x);
    std::uint32_t n = src.k == xoperand::kind::vector ? static_cast<std::uint32_t>(src.elems.size()) : 1;
    if (x.space == ptx::state_space::param) fail_at(error_kind::unsupported, t, "a store to parameter space");
    check_alignment(t, addr.at, w * n);
    place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w * n);
    if (p.r->space == memory_space::constant) fail_at(error_kind::unsupported, t, "a store to constant memory");
    std::vector<value> vs;
    std::vector<value_identity> ids;
    for (std::uint32_t i = 0; i < n; ++i) {
      value v = read(t, n == 1 ? src : src.elems[i]);
      if (v.t == value::tag::bits) v.bits &= mask_of(x.type);
      if (v.t == value::tag::predicate) fail_at(error_kind::not_structured, t, "a store of a symbolic predicate");
      ids.push_back(identity_of(v));
      vs.push_back(std::move(v));
    }
    observe(t, p, w * n, access_kind::write, pc, sequences_.of(ids));
    for (std::uint32_t i = 0; i < n; ++i) p.r->store(p.offset + std::uint64_t{i} * w, w, std::move(vs[i]));
  }

  void atomic(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    bool has_result = x.op == ptx::opcode::atom;
    std::size_t at = has_result ? 1 : 0;
    address_value addr = effective_address(t, x.ops[at]);
    std::uint32_t w = access_width(x);
    check_alignment(t, addr.at, w);
    place p = locate(t, x.has_space ? x.space : ptx::state_space::generic, addr, w);
    observe(t, p, w, access_kind::atomic, pc, {},
            x.has(flag::add) ? atomic_op::add : x.has(flag::min) ? atomic_op::min : x.has(flag::max) ? atomic_op::max
            : x.has(flag::and_) ? atomic_op::and_ : x.has(flag::or_) ? atomic_op::or_ : x.has(flag::xor_) ? atomic_op::xor_
            : atomic_op::other);
    value old = load_cell(t, *p.r, p.offset, w);
    value b = read(t, x.ops[at + 1]);
    value result;
    auto k = rkind_of(x.type);
    bool data = k || is_symbolic(old) || is_symbolic(b);
    if (x.has(flag::exch)) result = b;
    else if (x.has(flag::cas)) {
      value c = read(t, x.ops[at + 2]);
      if (is_symbolic(old) || is_symbolic(b)) fail_at(error_kind::not_structured, t, "compare-and-swap on symbolic data");
      result = (to_bits(old, t) & mask_of(x.type)) == (to_bits(b, t) & mask_of(x.type)) ? c : old;
    } else if (data && (x.has(flag::add) || x.has(flag::min) || x.has(flag::max))) {
      rkind kk = k.value_or(rkind::integer);
      real xs[2] = {to_real(old, kk, t), to_real(b, kk, t)};
      aop o = x.has(flag::add) ? aop::add : x.has(flag::min) ? aop::min : aop::max;
      result = value::of_real(guarded([&] { return d_.arith(o, xs, kk, float_mode{}); }, t), kk);
    } else {
      std::uint64_t a = to_bits(old, t) & mask_of(x.type), v = to_bits(b, t) & mask_of(x.type), r = 0;
      bool s = is_signed(x.type);
      if (x.has(flag::add)) r = a + v;
      else if (x.has(flag::and_)) r = a & v;
      else if (x.has(flag::or_)) r = a | v;
      else if (x.has(flag::xor_)) r = a ^ v;
      else if (x.has(flag::inc)) r = a >= v ? 0 : a + 1;
      else if (x.has(flag::dec)) r = (a == 0 || a > v) ? v : a - 1;
      else if (x.has(flag::min)) r = s ? static_cast<std::uint64_t>(std::min(sext(a, x.type), sext(v, x.type))) : std::min(a, v);
      else if (x.has(flag::max)) r = s ? static_cast<std::uint64_t>(std::max(sext(a, x.type), sext(v, x.type))) : std::max(a, v);
      else fail_at(error_kind::unsupported, t, "this atomic operation");
      result = value::of_bits(r & mask_of(x.type));
    }
    p.r->store(p.offset, w, result);
    if (has_result) {
      // The old value an atomic returns depends on the order of the threads' atomics; with
      // symbolic data that order is one schedule among many, so such a result may not be used.
      if (D::symbolic && data && x.ops[0].k != xoperand::kind::sink) {
        value poisoned;
        poisoned.bits = 1;
        write(t, x.ops[0], poisoned);
      } else {
        write(t, x.ops[0], old);
      }
    }
  }

  // ---- fast forms --------------------------------------------------------------------------
  // Runs instruction pc's fast form (program.hpp) and returns the next pc; returns no_fast,
  // having changed nothing the run can observe, when the instruction has none or its operands are
  // not what the form expects (a guard that is not concrete, an unwritten register, a symbolic or
  // real value where bits are needed, a misaligned address, a store to constant memory): the
  // generic path then runs the instruction and reports any error itself.
  static constexpr std::uint32_t no_fast = ~0u;

  static std::uint64_t cut(std::uint64_t v, unsigned shift, bool sign) {
    return sign ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift) : (v << shift) >> shift;
  }

  [[gnu::always_inline]] std::uint32_t fast_step(std::uint32_t t, std::uint32_t pc) {
    const fast_form& f = p_.fast[pc];
    value* regs = regs_.data() + std::size_t{t} * nregs_;
    if (f.guarded) {
      const value& g = regs[f.guard];
      if (g.t != value::tag::bits) return no_fast;
      if (static_cast<bool>(g.bits & 1) == f.guard_negated) return pc + 1;
    }
    switch (f.op) {
      case fast_op::none: return no_fast;
      case fast_op::bra: return f.target;
      case fast_op::mov: {
        if (f.imm) {
          regs[f.dst[0]] = value::of_bits((f.imms[0] << f.t_shift) >> f.t_shift);
        } else {
          const value& a = regs[f.src[0]];
          if (a.t == value::tag::empty) return no_fast;
          value v = a;
          if (v.t == value::tag::bits) v.bits = (v.bits << f.t_shift) >> f.t_shift;
          regs[f.dst[0]] = v;
        }
        return pc + 1;
      }
      case fast_op::mov_special:
        regs[f.dst[0]] = value::of_bits((special(t, static_cast<special_reg>(f.src[0])) << f.t_shift) >> f.t_shift);
        return pc + 1;
      case fast_op::int_add: case fast_op::int_sub: case fast_op::int_mul_lo: case fast_op::int_mul_wide:
      case fast_op::int_mad_lo: case fast_op::int_mad_wide: case fast_op::int_shl: case fast_op::int_shr:
      case fast_op::int_and: case fast_op::int_or: case fast_op::int_xor: case fast_op::int_min: case fast_op::int_max:
      case fast_op::cvt_int: case fast_op::setp_int:
        return fast_integer(regs, f) ? pc + 1 : no_fast;
      case fast_op::selp: {
        const value& p = regs[f.src[2]];
        if (p.t != value::tag::bits) return no_fast;
        std::uint32_t i = (p.bits & 1) ? 0 : 1;
        if (f.is_imm(i)) {
          regs[f.dst[0]] = value::of_bits(f.imms[i]);
        } else {
          const value& a = regs[f.src[i]];
          if (a.t == value::tag::empty) return no_fast;
          regs[f.dst[0]] = a;
        }
        return pc + 1;
      }
      case fast_op::setp_f32: case fast_op::f32_arith: return fast_float(t, regs, f) ? pc + 1 : no_fast;
      case fast_op::ld: return fast_load(t, regs, f, pc) ? pc + 1 : no_fast;
      case fast_op::st: return fast_store(t, regs, f, pc) ? pc + 1 : no_fast;
    }
    return no_fast;
  }

  [[gnu::always_inline]] bool fast_float(std::uint32_t t, value* regs, const fast_form& f) {
    real args[3];
    if (!f.imm) {  // registers only, the common case
      for (std::uint32_t i = 0; i < f.n; ++i)
        if (regs[f.src[i]].t != value::tag::real) return fast_float_mixed(t, regs, f);
      for (std::uint32_t i = 0; i < f.n; ++i) args[i] = regs[f.src[i]].r;
    } else {
      return fast_float_mixed(t, regs, f);
    }
    fast_float_finish(t, regs, f, args);
    return true;
  }
  // Sources that are immediates or bits (decoded as f32, as to_real decodes them).
  bool fast_float_mixed(std::uint32_t t, value* regs, const fast_form& f) {
    for (std::uint32_t i = 0; i < f.n; ++i)
      if (!f.is_imm(i) && regs[f.src[i]].t != value::tag::real && regs[f.src[i]].t != value::tag::bits) return false;
    real args[3];
    for (std::uint32_t i = 0; i < f.n; ++i) {
      if (f.is_imm(i)) {
        std::uint64_t b = f.imms[i];
        args[i] = guarded([&] { return d_.from_float(b, rkind::f32); }, t);
      } else {
        const value& a = regs[f.src[i]];
        if (a.t == value::tag::real) args[i] = a.r;
        else args[i] = guarded([&] { return d_.from_float(a.bits, rkind::f32); }, t);
      }
    }
    fast_float_finish(t, regs, f, args);
    return true;
  }
  [[gnu::always_inline]] void fast_float_finish(std::uint32_t t, value* regs, const fast_form& f, real* args) {
    if (f.op == fast_op::setp_f32) {
      if (auto r = d_.compare(f.cmp, args[0], args[1], rkind::f32)) {
        regs[f.dst[0]] = value::of_bits(*r);
      } else {
        value p;
        p.t = value::tag::predicate;
        p.k = rkind::f32;
        p.cmp = f.cmp;
        p.r = args[0];
        p.r2 = args[1];
        regs[f.dst[0]] = std::move(p);
      }
      return;
    }
    if constexpr (requires { D::template f32_plain<aop::add>(0.0, 0.0, 0.0); }) {
      if (f.plain) {
        double r = 0;
        switch (f.arith) {
          case aop::add: r = D::template f32_plain<aop::add>(args[0], args[1], 0.0); break;
          case aop::sub: r = D::template f32_plain<aop::sub>(args[0], args[1], 0.0); break;
          case aop::mul: r = D::template f32_plain<aop::mul>(args[0], args[1], 0.0); break;
          default: r = D::template f32_plain<aop::fma>(args[0], args[1], args[2]); break;  // plain: add/sub/mul/fma
        }
        // A NaN's payload is whichever operand's NaN the compiled code propagates, which IEEE
        // leaves open: take it from arith itself, so that NaNs too are arith's bit for bit.
        if (!std::isnan(r)) {
          regs[f.dst[0]] = value::of_real(r, rkind::f32);
          return;
        }
      }
    }
    real r = guarded([&] { return d_.arith(f.arith, std::span<const real>(args, f.n), rkind::f32, f.mode); }, t);
    regs[f.dst[0]] = value::of_real(std::move(r), rkind::f32);
  }

  // Integer forms: every source register must hold concrete bits.
  [[gnu::always_inline]] bool fast_integer(value* regs, const fast_form& f) {
    std::uint64_t v[3] = {f.imms[0], f.imms[1], f.imms[2]};
    std::uint32_t prov[3] = {0, 0, 0};
    for (std::uint32_t i = 0; i < f.n; ++i) {
      if (f.is_imm(i)) continue;
      const value& c = regs[f.src[i]];
      if (c.t != value::tag::bits) return false;
      v[i] = c.bits;
      prov[i] = c.provenance;
    }
    const std::uint64_t a = v[0], b = v[1], c = v[2];
    const unsigned ts = f.t_shift;
    const bool s = f.t_signed;
    auto sx = [&](std::uint64_t y) { return static_cast<std::int64_t>(y << ts) >> ts; };  // sign-extended
    auto zx = [&](std::uint64_t y) { return (y << ts) >> ts; };                              // zero-extended
    std::uint64_t r = 0;
    std::uint32_t provenance = 0;
    switch (f.op) {
      case fast_op::int_add: r = a + b; provenance = prov[0] && prov[1] ? 0 : prov[0] + prov[1]; break;
      case fast_op::int_sub: r = a - b; provenance = prov[1] ? 0 : prov[0]; break;
      case fast_op::int_mul_lo: r = a * b; break;
      case fast_op::int_mad_lo: r = a * b + c; provenance = prov[2]; break;
      case fast_op::int_mul_wide: case fast_op::int_mad_wide:
        r = s ? static_cast<std::uint64_t>(sx(a) * sx(b)) : zx(a) * zx(b);
        if (f.op == fast_op::int_mad_wide) {
          r += c;
          provenance = prov[2];
        }
        break;
      case fast_op::int_shl: r = (b & 0xffffffff) >= 64 - ts ? 0 : a << (b & 0xffffffff); break;
      case fast_op::int_shr: {
        std::uint64_t sh = std::min<std::uint64_t>(b & 0xffffffff, 64 - ts);
        if (s) r = static_cast<std::uint64_t>(sh >= 64 ? (sx(a) < 0 ? -1 : 0) : sx(a) >> std::min<std::uint64_t>(sh, 63));
        else r = sh >= 64 ? 0 : zx(a) >> sh;
        break;
      }
      case fast_op::int_and: r = a & b; break;
      case fast_op::int_or: r = a | b; break;
      case fast_op::int_xor: r = a ^ b; break;
      case fast_op::int_min: r = s ? static_cast<std::uint64_t>(std::min(sx(a), sx(b))) : std::min(zx(a), zx(b)); break;
      case fast_op::int_max: r = s ? static_cast<std::uint64_t>(std::max(sx(a), sx(b))) : std::max(zx(a), zx(b)); break;
      case fast_op::cvt_int: r = s ? static_cast<std::uint64_t>(sx(a)) : zx(a); provenance = prov[0]; break;
      case fast_op::setp_int: {
        std::uint64_t ua = zx(a), ub = zx(b);
        std::int64_t sa = sx(a), sb = sx(b);
        bool q = false;
        switch (f.cmp) {
          case cmp_op::eq: q = ua == ub; break;
          case cmp_op::ne: q = ua != ub; break;
          case cmp_op::lt: q = s ? sa < sb : ua < ub; break;
          case cmp_op::le: q = s ? sa <= sb : ua <= ub; break;
          case cmp_op::gt: q = s ? sa > sb : ua > ub; break;
          case cmp_op::ge: q = s ? sa >= sb : ua >= ub; break;
          case cmp_op::lo: q = ua < ub; break;
          case cmp_op::ls: q = ua <= ub; break;
          case cmp_op::hi: q = ua > ub; break;
          default: q = ua >= ub; break;  // hs (the form admits eq..hs only)
        }
        regs[f.dst[0]] = value::of_bits(q);
        return true;
      }
      default: return false;
    }
    value out = value::of_bits(cut(r, f.r_shift, f.r_signed));
    out.provenance = provenance;
    regs[f.dst[0]] = out;
    return true;
  }

  // The region of a fast load or store: the region this instruction touched last when the address
  // lies inside it (and was derived from it or from no array), else the generic search, which
  // also reports an access outside every array.
  [[gnu::always_inline]] place locate_fast(std::uint32_t t, std::uint32_t pc, ptx::state_space space, address_value a,
                                           std::uint32_t width) {
    std::uint64_t addr = a.at;
    bool shared = space == ptx::state_space::shared;
    if (space == ptx::state_space::generic) {
      if (addr >= address::local_window && addr < address::local_window + address::window_size)
        return locate(t, space, a, width);
      shared = addr >= address::shared_window && addr < address::shared_window + address::window_size;
      if (shared) addr -= address::shared_window;
    }
    std::uint32_t i = hint_[pc];
    if (i != ~0u) {
      const fast_window& w = windows_[i];
      if (w.shared == shared && addr - w.base + width <= w.bytes && addr >= w.base && (a.provenance == 0 || a.provenance == i + 1))
        return place{w.r, i, addr - w.base};
    }
    place p = locate(t, space, a, width);
    if (p.index != ~0u) hint_[pc] = p.index;
    return p;
  }

  bool fast_load(std::uint32_t t, value* regs, const fast_form& f, std::uint32_t pc) {
    const value& base = regs[f.base];
    if (base.t != value::tag::bits) return false;
    address_value addr{base.bits + f.offset, base.provenance};
    std::uint32_t w = f.width, all = w * f.n;
    if (addr.at & (all - 1)) return false;  // misaligned: the generic path reports it
    place p = locate_fast(t, pc, f.space, addr, all);
    observe(t, p, all, access_kind::read, pc);
    for (std::uint32_t i = 0; i < f.n; ++i) {
      value v = load_cell(t, *p.r, p.offset + std::uint64_t{i} * w, w);
      if (v.t == value::tag::bits) v.bits = cut(v.bits, f.t_shift, f.t_signed);
      regs[f.dst[i]] = std::move(v);
    }
    return true;
  }

  bool fast_store(std::uint32_t t, value* regs, const fast_form& f, std::uint32_t pc) {
    const value& base = regs[f.base];
    if (base.t != value::tag::bits) return false;
    for (std::uint32_t i = 0; i < f.n; ++i)
      if (!f.is_imm(i) && (regs[f.src[i]].t == value::tag::empty || regs[f.src[i]].t == value::tag::predicate))
        return false;
    address_value addr{base.bits + f.offset, base.provenance};
    std::uint32_t w = f.width, all = w * f.n;
    if (addr.at & (all - 1)) return false;
    place p = locate_fast(t, pc, f.space, addr, all);
    if (p.r->space == memory_space::constant) return false;
    value vs[4];
    value_identity ids[4];
    for (std::uint32_t i = 0; i < f.n; ++i) {
      vs[i] = f.is_imm(i) ? value::of_bits(f.imms[i]) : regs[f.src[i]];
      if (vs[i].t == value::tag::bits) vs[i].bits = (vs[i].bits << f.t_shift) >> f.t_shift;
      ids[i] = identity_of(vs[i]);
    }
    observe(t, p, all, access_kind::write, pc, sequences_.of(std::span<const value_identity>(ids, f.n)));
    for (std::uint32_t i = 0; i < f.n; ++i) p.r->store(p.offset + std::uint64_t{i} * w, w, std::move(vs[i]));
    return true;
  }

  void cp_async(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}
    address_value dst = effective_address(t, x.ops[0]), src = effective_address(t, x.ops[1]);
    std::uint32_t size = static_cast<std::uint32_t>(to_bits(read(t, x.ops[2]), t));
    std::uint32_t src_size = x.ops.size() > 3 && x.ops[3].k != xoperand::kind::address
                                 ? static_cast<std::uint32_t>(to_bits(read(t, x.ops[3]), t))
                                 : size;
    if (size != 4 && size != 8 && size != 16) fail_at(error_kind::unsupported, t, "cp.async size");
    check_alignment(t, dst.at, size);
    check_alignment(t, src.at, size);
    place d = locate(t, ptx::state_space::shared, dst, size);
    std::uint32_t piece_w = 4;
    if (src_size) {
      place s = locate(t, ptx::state_space::global, src, src_size);
      observe(t, s, src_size, access_kind::read, pc);
      for (std::uint32_t off = 0; off < size; off += piece_w) {
        value v = off < src_size ? load_cell(t, *s.r, s.offset + off, piece_w) : value::of_bits(0);
        copies_[t].push_back(pending_copy{copy_group_[t], pc, d.index, d.offset + off, piece_w, std::move(v)});
      }
    } else {
      for (std::uint32_t off = 0; off < size; off += piece_w)
        copies_[t].push_back(pending_copy{copy_group_[t], pc, d.index, d.offset + off, piece_w, value::of_bits(0)});
    }
  }

  // Lands this thread's copies of every committed group but the newest `keep` ones (wait_all:
  // every copy, committed or not). Copies not yet committed never land at a wait_group.
  void cp_async_wait(std::uint32_t t, std::uint64_t keep, bool all) {
    std::uint64_t committed = copy_group_[t];
    auto& cs = copies_[t];
    std::vector<pending_copy> rest;
    for (auto& c : cs) {
      bool land = all || c.group + keep < committed;
      if (!land) {
        rest.push_back(std::move(c));
        continue;
      }
      region<real>& r = regions_[c.region];
      observe(t, place{&r, c.region, c.offset}, c.width, access_kind::write, c.instruction, identity_of(c.v));
      r.store(c.offset, c.width, std::move(c.v));
    }
    cs = std::move(rest);
  }

  // ---- CTA barriers --------------------------------------------------------------------------
  void barrier(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    bool arrive = x.has(flag::arrive);
    bool red = x.has(flag::red);
    std::size_t first = red ? 1 : 0;
    std::uint64_t id = to_bits(read(t, x.ops[first]), t) & 0xffffffff;
    if (id >= 16) fail_at(error_kind::barrier, t, "barrier id " + std::to_string(id) + " is not in 0..15");
    std::optional<std::uint32_t> count;
    std::size_t count_at = first + 1;
    if (x.ops.size() > count_at + (red ? 1 : 0)) {
      count = static_cast<std::uint32_t>(to_bits(read(t, x.ops[count_at]), t));
      if (*count == 0 || *count % warp_size != 0)
        fail_at(error_kind::barrier, t, "barrier thread count " + std::to_string(*count) + " is not a positive multiple of the warp size");
    }
    if (arrive && !count) fail_at(error_kind::barrier, t, "bar.arrive needs a thread count");
    auto& bar = barriers_[id];
    if (bar.regs.empty()) {
      bar.all = !count;
      bar.expected = count.value_or(0);
      bar.started_by = pc;
    } else if (bar.all != !count || (count && *count != bar.expected)) {
      fail_at(error_kind::barrier, t,
              "barrier " + std::to_string(id) + " generation " + std::to_string(bar.generation) + " was opened at " +
                  where(bar.started_by) + " expecting " + (bar.all ? std::string("all threads") : std::to_string(bar.expected)) +
                  " but this instruction names " + (count ? std::to_string(*count) : std::string("all threads")));
    }
    if (red) {
      value pv = read(t, x.ops.back());
      red_value_[t] = truth(t, pv);
    }
    barrier_registration reg_{t, !arrive, pc};
    bar.regs.push_back(reg_);
    o_.on_barrier_register(reg_, barrier_key{barrier_kind::cta, static_cast<std::uint32_t>(id)}, bar.generation,
                           bar.expected);
    if (arrive) {
      pc_[t] = pc + 1;
    } else {  // resumes after the barrier when the generation completes
      status_[t] = status::at_barrier;
      barrier_of_[t] = static_cast<std::uint32_t>(id);
    }
    try_complete(static_cast<std::uint32_t>(id));
  }

  void try_complete(std::uint32_t id) {
    auto& bar = barriers_[id];
    if (bar.regs.empty()) return;
    std::uint32_t arrived;
    if (bar.all) {
      if (bar.regs.size() < live_) return;
      arrived = static_cast<std::uint32_t>(bar.regs.size());
    } else {
      // Per-warp counting: a warp whose non-exited threads have all registered counts as a whole
      // warp; a warp still arriving counts its registered threads.
      // (A registrant that has exited since, e.g. after bar.arrive, still counts as arrived.)
      std::vector<std::uint32_t> per_warp(warps_, 0), live_registered(warps_, 0);
      for (auto& r : bar.regs) {
        ++per_warp[r.thread / warp_size];
        live_registered[r.thread / warp_size] += status_[r.thread] != status::exited;
      }
      arrived = 0;
      for (std::uint32_t w = 0; w < warps_; ++w) {
        if (!per_warp[w]) continue;
        arrived += live_registered[w] == live_in_warp(w) ? warp_size : per_warp[w];
      }
      if (arrived < bar.expected) return;
      if (arrived > bar.expected)
        fail(error_kind::barrier, bar.regs.back().thread,
             "barrier " + std::to_string(id) + " generation " + std::to_string(bar.generation) + ": " +
                 std::to_string(arrived) + " threads arrived for " + std::to_string(bar.expected) + " expected (over-subscription)",
             bar.regs.back().instruction);
    }
    std::vector<barrier_registration> regs = std::move(bar.regs);
    bar.regs.clear();
    ++stats_.barrier_instances;
    o_.on_barrier_complete(barrier_instance{barrier_key{barrier_kind::cta, id}, bar.generation,
                                            bar.all ? arrived : bar.expected, regs});
    ++bar.generation;
    // bar.red: the reduction over every registrant's predicate.
    std::uint64_t popc = 0;
    bool all = true, any = false;
    for (auto& r : regs) {
      bool v = red_value_.contains(r.thread) && red_value_[r.thread];
      popc += v;
      all = all && v;
      any = any || v;
    }
    for (auto& r : regs) {
      if (!r.waits) continue;
      std::uint32_t t = r.thread;
      const xinstr& x = p_.code[pc_[t]];
      if (x.has(flag::red)) {
        std::uint64_t res = x.has(flag::popc) ? popc : x.has(flag::and_) ? all : any;
        write(t, x.ops[0], value::of_bits(res));
      }
      status_[t] = status::runnable;
      ++pc_[t];
    }
    red_value_.clear();
  }

  std::uint32_t live_in_warp(std::uint32_t w) const {
    std::uint32_t c = 0;
    for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u) c += status_[u] != status::exited;
    return c;
  }
  std::uint64_t live_lanes(std::uint32_t w) const {
    std::uint64_t m = 0;
    for (std::uint32_t u = w * warp_size; u < std::min(n_, (w + 1) * warp_size); ++u)
      if (status_[u] != status::exited) m |= std::uint64_t{1} << (u - w * warp_size);
    return m;
  }

  // ---- warp collectives ----------------------------------------------------------------------
  static constexpr std::uint32_t warp_size = 32;

  void arrive_warp(std::uint32_t t, const xinstr& x, std::uint32_t pc) {
    using op = ptx::opcode;
    std::uint64_t mask = 0xffffffffu;
    switch (x.op) {
      case op::bar_warp_sync: mask = to_bits(read(t, x.ops[0]), t); break;
      case op::shfl: if (x.ops.size() > 4) mask = to_bits(read(t, x.ops[4]), t); break;
      case op::vote: if (x.ops.size() > 2) mask = to_bits(read(t, x.ops.back()), t); break;
      case op::match: case op::redux: mask = to_bits(read(t, x.ops.back()), t); break;
      default: break;  // mma, ldmatrix, wmma: .aligned over the whole warp
    }
    mask &= 0xffffffffu;
    std::uint32_t lane = t % warp_size;
    if (!(mask >> lane & 1))
      fail_at(error_kind::barrier, t, "the executing thread is not in the member mask 0x" + hex(mask));
    std::uint32_t w = t / warp_size;
    std::uint64_t exists = w == warps_ - 1 && n_ % warp_size ? (std::uint64_t{1} << (n_ % warp_size)) - 1 : 0xffffffffu;
    if (mask & ~exists) fail_at(error_kind::barrier, t, "member mask 0x" + hex(mask) + " names lanes the block does not have");
    status_[t] = status::at_warp;
    warp_mask_[t] = static_cast<std::uint32_t>(mask);
    (void)pc;
    try_collective(t);
  }

  // Completes the collective thread t waits at, if every non-exited member has arrived.
  void try_collective(std::uint32_t t) {
    std::uint32_t w = t / warp_size, base = w * warp_size;
    std::uint32_t mask = warp_mask_[t];
    const xinstr& x = p_.code[pc_[t]];
    std::vector<std::uint32_t> members;
    for (std::uint32_t lane = 0; lane < warp_size; ++lane) {
      if (!(mask >> lane & 1)) continue;
      std::uint32_t u = base + lane;
      if (status_[u] == status::exited) continue;
      if (status_[u] != status::at_warp) return;
      const xinstr& y = p_.code[pc_[u]];
      if (y.op != x.op || y.flags != x.flags || warp_mask_[u] != mask) {
        // Divergence within the warp: members wait at different collectives.
        fail(error_kind::barrier, u,
             "warp " + std::to_string(w) + ": threads of member mask 0x" + hex(mask) + " wait at different collectives (" +
                 where(pc_[t]) + " and " + where(pc_[u]) + ")",
             pc_[u]);
      }
      members.push_back(u);
    }
    if (members.empty()) return;
    std::vector<barrier_registration> regs;
    for (auto u : members) {
      regs.push_back({u, true, pc_[u]});
      o_.on_barrier_register(regs.back(), barrier_key{barrier_kind::warp, w}, warp_generation_[w], mask);
    }
    collective(x, members);
    ++stats_.warp_collectives;
    o_.on_barrier_complete(barrier_instance{barrier_key{barrier_kind::warp, w}, warp_generation_[w],
                                            static_cast<std::uint32_t>(members.size()), regs});
    ++warp_generation_[w];
    for (auto u : members) {
      status_[u] = status::runnable;
      ++pc_[u];
    }
  }

  void collective(const xinstr& x, const std::vector<std::uint32_t>& members) {
    using op = ptx::opcode;
    switch (x.op) {
      case op::bar_warp_sync: return;
      case op::shfl: return shfl(x, members);
      case op::vote: return vote(x, members);
      case op::match: return match(x, members);
      case op::redux: return redux(x, members);
      case op::mma: return mma(x, members);
      case op::ldmatrix: return ldmatrix(x, members);
      case op::wmma_load: return wmma_load(x, members);
      case op::wmma_store: return wmma_store(x, members);
      case op::wmma_mma: return wmma_mma(x, members);
      default: fail_at(error_kind::unsupported, members.front(), "this warp collective");
    }
  }

  std::uint32_t member_at(const std::vector<std::uint32_t>& members, std::uint32_t lane) const {
    std::uint32_t base = members.front() / warp_size * warp_size;
    for (auto u : members)
      if (u == base + lane) return u;
    return ~0u;
  }

  void shfl(const xinstr& x, const std::vector<std::uint32_t>& members) {
    // PTX ISA, shfl.sync: source lane j from b (lane or offset) and c (clamp | segment mask << 8).
    std::vector<value> a(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) a[i] = read(members[i], x.ops[1]);
    std::vector<std::pair<value, bool>> out(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      std::uint32_t u = members[i], lane = u % warp_size;
      std::uint32_t bval = static_cast<std::uint32_t>(to_bits(read(u, x.ops[2]), u)) & 31;
      std::uint32_t c = static_cast<std::uint32_t>(to_bits(read(u, x.ops[3]), u));
      std::uint32_t cval = c & 31, segmask = (c >> 8) & 31;
      std::uint32_t max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
      std::int32_t j = 0;
      bool pval = false;
      if (x.has(flag::up)) {
        j = static_cast<std::int32_t>(lane) - static_cast<std::int32_t>(bval);
        pval = j >= static_cast<std::int32_t>(max_lane);
      } else if (x.has(flag::down)) {
        j = static_cast<std::int32_t>(lane + bval);
        pval = j <= static_cast<std::int32_t>(max_lane);
      } else if (x.has(flag::bfly)) {
        j = static_cast<std::int32_t>(lane ^ bval);
        pval = j <= static_cast<std::int32_t>(max_lane);
      } else {
        j = static_cast<std::int32_t>(min_lane | (bval & ~segmask));
        pval = j <= static_cast<std::int32_t>(max_lane);
      }
      if (!pval) j = static_cast<std::int32_t>(lane);
      std::uint32_t src = member_at(members, static_cast<std::uint32_t>(j));
      if (src == ~0u)
        fail(error_kind::barrier, u,
             "shfl reads lane " + std::to_string(j) + ", which is not a non-exited member of the mask", pc_[u]);
      std::size_t si = static_cast<std::size_t>(std::find(members.begin(), members.end(), src) - members.begin());
      out[i] = {a[si], pval};
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      const xoperand& d = x.ops[0];
      if (d.k == xoperand::kind::vector) {
        write(members[i], d.elems[0], out[i].first);
        write(members[i], d.elems[1], value::of_bits(out[i].second));
      } else {
        write(members[i], d, out[i].first);
      }
    }
  }

  void vote(const xinstr& x, const std::vector<std::uint32_t>& members) {
    std::uint64_t ballot = 0;
    std::vector<bool> p(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      p[i] = truth(members[i], read(members[i], x.ops[1]));
      if (p[i]) ballot |= std::uint64_t{1} << (members[i] % warp_size);
    }
    bool all = true, any = false;
    for (bool v : p) all = all && v, any = any || v;
    for (std::size_t i = 0; i < members.size(); ++i) {
      value r;
      if (x.has(flag::ballot)) r = value::of_bits(ballot);
      else if (x.has(flag::all)) r = value::of_bits(all);
      else if (x.has(flag::any)) r = value::of_bits(any);
      else r = value::of_bits(all || !any);  // .uni
      write(members[i], x.ops[0], r);
    }
  }

  void match(const xinstr& x, const std::vector<std::uint32_t>& members) {
    std::vector<std::uint64_t> v(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) v[i] = to_bits(read(members[i], x.ops[1]), members[i]) & mask_of(x.type);
    bool all_equal = std::all_of(v.begin(), v.end(), [&](std::uint64_t y) { return y == v[0]; });
    std::uint64_t everyone = 0;
    for (auto u : members) everyone |= std::uint64_t{1} << (u % warp_size);
    for (std::size_t i = 0; i < members.size(); ++i) {
      std::uint64_t m = 0;
      if (x.has(flag::all)) m = all_equal ? everyone : 0;
      else
        for (std::size_t j = 0; j < members.size(); ++j)
          if (v[j] == v[i]) m |= std::uint64_t{1} << (members[j] % warp_size);
      const xoperand& d = x.ops[0];
      if (d.k == xoperand::kind::vector) {
        write(members[i], d.elems[0], value::of_bits(m));
        write(members[i], d.elems[1], value::of_bits(all_equal));
      } else {
        write(members[i], d, value::of_bits(m));
      }
    }
  }

  void redux(const xinstr& x, const std::vector<std::uint32_t>& members) {
    std::vector<value> v;
    for (auto u : members) v.push_back(read(u, x.ops[1]));
    value r;
    auto k = rkind_of(x.type);
    bool data = k.has_value();
    for (auto& c : v) data = data || is_symbolic(c);
    if (data && (x.has(flag::add) || x.has(flag::min) || x.has(flag::max))) {
      rkind kk = k.value_or(rkind::integer);
      aop o = x.has(flag::add) ? aop::add : x.has(flag::min) ? aop::min : aop::max;
      real acc = to_real(v[0], kk, members[0]);
      for (std::size_t i = 1; i < v.size(); ++i) {
        real xs[2] = {acc, to_real(v[i], kk, members[i])};
        acc = guarded([&] { return d_.arith(o, xs, kk, float_mode{}); }, members[i]);
      }
      r = value::of_real(acc, kk);
    } else {
      std::uint64_t acc = to_bits(v[0], members[0]) & mask_of(x.type);
      bool s = is_signed(x.type);
      for (std::size_t i = 1; i < v.size(); ++i) {
        std::uint64_t b = to_bits(v[i], members[i]) & mask_of(x.type);
        if (x.has(flag::add)) acc = (acc + b) & mask_of(x.type);
        else if (x.has(flag::and_)) acc &= b;
        else if (x.has(flag::or_)) acc |= b;
        else if (x.has(flag::xor_)) acc ^= b;
        else if (x.has(flag::min)) acc = s ? static_cast<std::uint64_t>(std::min(sext(acc, x.type), sext(b, x.type))) & mask_of(x.type) : std::min(acc, b);
        else if (x.has(flag::max)) acc = s ? static_cast<std::uint64_t>(std::max(sext(acc, x.type), sext(b, x.type))) & mask_of(x.type) : std::max(acc, b);
      }
      r = value::of_bits(acc);
    }
    for (auto u : members) write(u, x.ops[0], r);
  }

  // ---- tensor cores ----------------------------------------------------------------------------
  // Registers of an operand: a vector {a, b, ...} or one register.
  static std::vector<const xoperand*> regs_of(const xoperand& o) {
    std::vector<const xoperand*> v;
    if (o.k == xoperand::kind::vector)
      for (auto& e : o.elems) v.push_back(&e);
    else
      v.push_back(&o);
    return v;
  }

  static fragments::element_type element_of(vtype t) {
    switch (t) {
      case vtype::bf16: case vtype::bf16x2: return fragments::element_type::bf16;
      case vtype::tf32: return fragments::element_type::tf32;
      case vtype::f32: return fragments::element_type::f32;
      default: return fragments::element_type::f16;
    }
  }

  // Element `index` of a lane's fragment registers (two halves per register for 16-bit types).
  real fragment_element(std::uint32_t u, const std::vector<const xoperand*>& regs, std::uint32_t index, rkind k, bool half) {
    if (!half) return to_real(read(u, *regs[index]), k, u);
    value v = read(u, *regs[index / 2]);
    if (v.t == value::tag::packed) return index % 2 ? v.r2 : v.r;
    std::uint64_t b = to_bits(v, u);
    return guarded([&] { return d_.from_float(index % 2 ? (b >> 16) & 0xffff : b & 0xffff, k); }, u);
  }

  void mma(const xinstr& x, const std::vector<std::uint32_t>& members) {
    // mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c
    using fragments::operand;
    if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "mma.sync needs all 32 lanes", pc_[members.front()]);
    fragments::mma_shape shape = x.has(flag::m16n8k16) ? fragments::mma_shape::m16n8k16
                                 : x.has(flag::m16n8k8) ? fragments::mma_shape::m16n8k8
                                                        : fragments::mma_shape::m16n8k4;
    if (x.types.size() != 4 || !x.has(flag::row) || !x.has(flag::col))
      fail_at(error_kind::unsupported, members.front(), "this mma form (expected .row.col with d, a, b, c types)");
    vtype td = x.types[0], ta = x.types[1], tc = x.types[3];
    fragments::element_type ab = element_of(ta);
    if (!fragments::mma_supported(shape, ab) || td != vtype::f32 || tc != vtype::f32)
      fail_at(error_kind::unsupported, members.front(), "this mma shape or type");
    rkind kab = *rkind_of(ta);
    bool half = ab != fragments::element_type::tf32;
    auto ea = fragments::mma_extent(shape, operand::a), eb = fragments::mma_extent(shape, operand::b),
         ec = fragments::mma_extent(shape, operand::c);
    std::vector<real> A(ea.rows * ea.cols), B(eb.rows * eb.cols), C(ec.rows * ec.cols);
    auto ra = regs_of(x.ops[1]), rb = regs_of(x.ops[2]), rc = regs_of(x.ops[3]);
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::a); ++i) {
        auto at = fragments::mma_element(shape, operand::a, ab, lane, i);
        A[at.row * ea.cols + at.col] = fragment_element(u, ra, i, kab, half);
      }
      for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::b); ++i) {
        auto at = fragments::mma_element(shape, operand::b, ab, lane, i);
        B[at.row * eb.cols + at.col] = fragment_element(u, rb, i, kab, half);
      }
      for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::c); ++i) {
        auto at = fragments::mma_element(shape, operand::c, ab, lane, i);
        C[at.row * ec.cols + at.col] = to_real(read(u, *rc[i]), rkind::f32, u);
      }
    }
    std::vector<real> Dm = product(A, B, C, ec.rows, ec.cols, ea.cols, members.front());
    auto rd = regs_of(x.ops[0]);
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      for (std::uint32_t i = 0; i < fragments::mma_elements_per_lane(shape, operand::c); ++i) {
        auto at = fragments::mma_element(shape, operand::c, ab, lane, i);
        write(u, *rd[i], value::of_real(Dm[at.row * ec.cols + at.col], rkind::f32));
      }
    }
  }

  // D = A·B + C over the domain, accumulating in k order (f32, round to nearest in float32).
  std::vector<real> product(const std::vector<real>& A, const std::vector<real>& B, const std::vector<real>& C,
                            std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t t) {
    std::vector<real> Dm(std::size_t{m} * n);
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        real acc = C[i * n + j];
        for (std::uint32_t q = 0; q < k; ++q) {
          if constexpr (requires { D::template f32_plain<aop::fma>(0.0, 0.0, 0.0); }) {
            double r = D::template f32_plain<aop::fma>(A[i * k + q], B[q * n + j], acc);
            if (!std::isnan(r)) {  // (a NaN comes from arith, as in fast_float_finish)
              acc = r;
              continue;
            }
          }
          real xs[3] = {A[i * k + q], B[q * n + j], acc};
          acc = guarded([&] { return d_.arith(aop::fma, xs, rkind::f32, float_mode{}); }, t);
        }
        Dm[i * n + j] = acc;
      }
    return Dm;
  }

  void ldmatrix(const xinstr& x, const std::vector<std::uint32_t>& members) {
    // ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 d, [a]: lanes 8i..8i+7 give the row
    // addresses of matrix i; lane l receives, per matrix r, the two halves ldmatrix_element names.
    if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "ldmatrix needs all 32 lanes", pc_[members.front()]);
    std::uint32_t count = x.has(flag::x4) ? 4 : x.has(flag::x2) ? 2 : 1;
    bool trans = x.has(flag::trans);
    std::vector<address_value> row_address(count * 8);
    for (std::uint32_t lane = 0; lane < count * 8; ++lane) {
      std::uint32_t u = members[lane];
      row_address[lane] = effective_address(u, x.ops[1]);
    }
    // Read every row (8 halves) once; each lane's read is observed as its own access.
    std::vector<value> halves(count * 64);
    for (std::uint32_t lane = 0; lane < count * 8; ++lane) {
      std::uint32_t u = members[lane];
      address_value addr = row_address[lane];
      check_alignment(u, addr.at, 16);
      place p = locate(u, x.has_space ? x.space : ptx::state_space::shared, addr, 16);
      observe(u, p, 16, access_kind::read, pc_[u]);
      for (std::uint32_t c = 0; c < 8; ++c) halves[lane * 8 + c] = load_cell(u, *p.r, p.offset + 2 * c, 2);
    }
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      auto rd = regs_of(x.ops[0]);
      for (std::uint32_t r = 0; r < count; ++r) {
        value parts[2];
        for (std::uint32_t h = 0; h < 2; ++h) {
          auto at = fragments::ldmatrix_element(trans, lane, h);
          std::uint32_t src_lane = fragments::ldmatrix_row_source(r, at.row);
          parts[h] = halves[src_lane * 8 + at.col];
        }
        write(u, *rd[r], pack(u, {parts[0], parts[1]}, 2));
      }
    }
  }

  // wmma m16n16k16: fragments are whole-warp objects (the layout among lanes is unspecified by
  // PTX; fragments.hpp fixes one, used consistently by load, mma and store).
  struct wmma_kind {
    fragments::operand which;
    fragments::element_type t;
    rkind k;
  };
  wmma_kind wmma_kind_of(const xinstr& x, std::uint32_t u) {
    if (!x.has(flag::m16n16k16)) fail_at(error_kind::unsupported, u, "wmma shapes other than m16n16k16");
    fragments::operand which = x.has(flag::a) ? fragments::operand::a : x.has(flag::b) ? fragments::operand::b : fragments::operand::c;
    vtype t = x.type;
    fragments::element_type et = element_of(t);
    if (!fragments::wmma_supported(which, et)) fail_at(error_kind::unsupported, u, "this wmma fragment type");
    return {which, et, rkind_of(t).value_or(rkind::f32)};
  }

  void wmma_load(const xinstr& x, const std::vector<std::uint32_t>& members) {
    if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
    std::uint32_t u0 = members.front();
    wmma_kind wk = wmma_kind_of(x, u0);
    auto layout = x.has(flag::col) ? fragments::matrix_layout::col : fragments::matrix_layout::row;
    address_value base = effective_address(u0, x.ops[1]);
    std::uint32_t stride = x.ops.size() > 2 ? static_cast<std::uint32_t>(to_bits(read(u0, x.ops[2]), u0)) : 16;
    for (auto u : members)
      if (effective_address(u, x.ops[1]).at != base.at) fail_at(error_kind::unsupported, u, "wmma.load with different addresses per lane");
    std::uint32_t eb = bytes(wk.k);
    bool half = eb == 2;
    auto space = x.has_space ? x.space : ptx::state_space::generic;
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      auto rd = regs_of(x.ops[0]);
      std::uint32_t per_lane = fragments::wmma_elements_per_lane(wk.which, wk.t);
      std::vector<value> elems(per_lane);
      for (std::uint32_t i = 0; i < per_lane; ++i) {
        auto at = fragments::wmma_element(wk.which, wk.t, lane, i);
        address_value addr{base.at + fragments::wmma_memory_offset(layout, at, stride) * eb, base.provenance};
        place p = locate(u, space, addr, eb);
        observe(u, p, eb, access_kind::read, pc_[u]);
        elems[i] = load_cell(u, *p.r, p.offset, eb);
      }
      if (half)
        for (std::uint32_t r = 0; r < rd.size(); ++r) write(u, *rd[r], pack(u, {elems[2 * r], elems[2 * r + 1]}, 2));
      else
        for (std::uint32_t r = 0; r < rd.size(); ++r) write(u, *rd[r], elems[r]);
    }
  }

  void wmma_store(const xinstr& x, const std::vector<std::uint32_t>& members) {
    if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
    std::uint32_t u0 = members.front();
    if (x.type != vtype::f32) fail_at(error_kind::unsupported, u0, "wmma.store of a non-f32 fragment");
    auto layout = x.has(flag::col) ? fragments::matrix_layout::col : fragments::matrix_layout::row;
    address_value base = effective_address(u0, x.ops[0]);
    std::uint32_t stride = x.ops.size() > 2 ? static_cast<std::uint32_t>(to_bits(read(u0, x.ops[2]), u0)) : 16;
    auto space = x.has_space ? x.space : ptx::state_space::generic;
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      auto rs = regs_of(x.ops[1]);
      for (std::uint32_t i = 0; i < rs.size(); ++i) {
        auto at = fragments::wmma_element(fragments::operand::c, fragments::element_type::f32, lane, i);
        address_value addr{base.at + fragments::wmma_memory_offset(layout, at, stride) * 4, base.provenance};
        place p = locate(u, space, addr, 4);
        value v = read(u, *rs[i]);
        observe(u, p, 4, access_kind::write, pc_[u], identity_of(v));
        p.r->store(p.offset, 4, v);
      }
    }
  }

  void wmma_mma(const xinstr& x, const std::vector<std::uint32_t>& members) {
    // wmma.mma.sync.aligned.alayout.blayout.m16n16k16.f32.f32 d, a, b, c (f16 a/b)
    using fragments::operand;
    if (members.size() != warp_size) fail(error_kind::barrier, members.front(), "wmma needs all 32 lanes", pc_[members.front()]);
    if (!x.has(flag::m16n16k16) || x.types.size() != 2 || x.types[0] != vtype::f32 || x.types[1] != vtype::f32)
      fail_at(error_kind::unsupported, members.front(), "this wmma.mma form (f16 inputs, f32 accumulators expected)");
    auto et = fragments::element_type::f16;
    std::vector<real> A(256), B(256), C(256);
    auto ra = regs_of(x.ops[1]), rb = regs_of(x.ops[2]), rc = regs_of(x.ops[3]);
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      for (std::uint32_t i = 0; i < fragments::wmma_elements_per_lane(operand::a, et); ++i) {
        auto at = fragments::wmma_element(operand::a, et, lane, i);
        A[at.row * 16 + at.col] = fragment_element(u, ra, i, rkind::f16, true);
      }
      for (std::uint32_t i = 0; i < fragments::wmma_elements_per_lane(operand::b, et); ++i) {
        auto at = fragments::wmma_element(operand::b, et, lane, i);
        B[at.row * 16 + at.col] = fragment_element(u, rb, i, rkind::f16, true);
      }
      for (std::uint32_t i = 0; i < rc.size(); ++i) {
        auto at = fragments::wmma_element(operand::c, fragments::element_type::f32, lane, i);
        C[at.row * 16 + at.col] = to_real(read(u, *rc[i]), rkind::f32, u);
      }
    }
    std::vector<real> Dm = product(A, B, C, 16, 16, 16, members.front());
    auto rd = regs_of(x.ops[0]);
    for (auto u : members) {
      std::uint32_t lane = u % warp_size;
      for (std::uint32_t i = 0; i < rd.size(); ++i) {
        auto at = fragments::wmma_element(operand::c, fragments::element_type::f32, lane, i);
        write(u, *rd[i], value::of_real(Dm[at.row * 16 + at.col], rkind::f32));
      }
    }
  }

  // ---- state -------------------------------------------------------------------------------
  const program& p_;
  const launch& l_;
  D& d_;
  O& o_;
  engine_options options_;
  run_stats stats_;
  identity_sequences sequences_;  // the run's vector and packed store identities

  std::uint32_t n_ = 0, nregs_ = 0, live_ = 0, warps_ = 0;
  std::vector<value> regs_;
  std::vector<status> status_;
  std::vector<std::uint32_t> pc_, barrier_of_, warp_mask_;
  std::vector<std::uint32_t> warp_generation_;
  cta_barrier barriers_[16];
  std::map<std::uint32_t, bool> red_value_;
  std::vector<std::vector<pending_copy>> copies_;
  std::vector<std::uint64_t> copy_group_;

  std::vector<region<real>> regions_;
  std::vector<std::uint32_t> shared_order_, global_order_;
  std::vector<std::unique_ptr<region<real>>> locals_;
  std::uint64_t local_top_ = 0, shared_bytes_ = 0;
  std::uint64_t rng_ = 0;

  boost::unordered_flat_map<std::uint32_t, symbol> symbols_;
  std::vector<std::uint32_t> dynamic_symbols_;
  std::vector<value> params_;

  // A region as locate_fast sees it: bytes is 0 unless no other region of its window starts
  // inside it (only then is an address within it found without the search).
  struct fast_window {
    std::uint64_t base = 0, bytes = 0;
    region<real>* r = nullptr;
    bool shared = false;
  };
  bool fast_forms_ = false;           // run the program's fast forms
  std::uint64_t next_check_ = 0;      // the step count at which checks() runs next
  std::vector<fast_window> windows_;       // per region
  std::vector<std::uint32_t> hint_;   // per instruction: the region it last accessed, or ~0u
};

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
