// The execution engine: runs every thread of one CTA of a decoded PTX kernel under one schedule,
// with data values from a value domain (exec/domain.hpp) and every memory access and barrier
// event reported to an observer (exec/observer.hpp). Written once for all domains.
//
// Schedule: round robin over threads in linear-id order; a thread runs until it blocks (at a CTA
// barrier, a warp collective, a wait on an incomplete mbarrier phase, or a load of memory nobody
// has written yet, which waits for other threads to move: engine_options::reads_wait_for_writes)
// or exits. VOLTA's confluence makes one schedule enough for a
// race-free, well-synchronized CTA; the race context (an observer) is what proves the CTA is one.
//
// Structured CTAs (VOLTA §3.2): addresses, branch conditions, barrier operands and loop bounds are
// concrete in every run; data may be symbolic. A symbolic value reaching one of those is a
// "not a structured CTA" error naming the instruction. A comparison of symbolic reals gives an
// undecided predicate that selp (or a predicated mov) consumes as max/min; any other use is a
// branch point of a case split where the domain runs one (exec/case_split.hpp), else an error.
//
// Barriers: `bar.sync`/`barrier.sync` (id, optional count), `bar.arrive` (id, count), `bar.red`
// go through generations per id (WEFT). Counting is per warp, as PTX specifies for sm_70+: a warp
// counts as warp-size threads once all its non-exited threads have arrived. A barrier without a
// count waits for every non-exited thread of the CTA. Warp collectives (shfl, vote, match, redux,
// elect, bar.warp.sync, setmaxnreg, mma, ldmatrix, stmatrix, movmatrix, wmma) wait for the
// non-exited threads of their member mask.
// mbarriers (semantics/mbarrier.hpp) are objects in shared memory with phases; every kind of
// synchronization is described once in exec/sync.hpp, for this engine and the race context.
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
//
// Files: this header is the core (options, thread and warp state, registers and operands, errors,
// the dispatch to the generic and fast forms), declaring what exec/semantics/schedule.hpp defines
// (setup, the scheduler and run loop, limits, deadlock detection). The semantics of each instruction family are member functions declared in the class
// and defined in exec/semantics/<family>.hpp, which this header includes at its end; each family
// header includes this one, so any of them alone gives the whole engine.
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
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// GCC 12 reports -Wrestrict false positives inside std::string concatenation (GCC bug 105329)
// in the error messages below.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

namespace gpueq::exec {

// A hold for a race witness (check/explain.hpp): some threads are held back at one instruction
// until another thread has executed another, so two racing accesses happen in an order that round
// robin (each thread until it blocks) never gives. `after`: each listed thread is held right after
// it first executes `instruction` (a load of a read-modify-write: another thread's whole update
// then lands between its load and its store: a lost update); otherwise right before it first
// reaches it (a warp held back while the other threads go on through barrier generations it is not
// needed for, so a later generation's access comes first). The held threads run again when
// `until_thread` executes `until_instruction` while some thread is held; if nothing else can move
// first (they are needed for a barrier, say), they are let go at that point instead, so a hold
// is never what stops a run. Every run with a hold is a schedule the hardware may run (PTX
// promises no thread any progress relative to another); only the round-robin schedules apply it
// (not lockstep_warps or schedule_seed). The hold happens once per run.
struct hold_plan {
  std::vector<std::uint32_t> threads;  // empty: no hold
  std::uint32_t instruction = 0;
  bool after = false;
  std::uint32_t until_thread = 0, until_instruction = 0;
};

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
  // Race witnesses: threads held back at an instruction (hold_plan above).
  hold_plan hold;
  // Stop with a clear error when the process's resident memory exceeds this many MiB (0: no
  // limit). Checked every 2^16 thread-instructions (Linux: /proc/self/statm).
  std::uint64_t max_resident_mib = 0;
  // Run decoded fast forms (program.hpp) where their operands allow. Off, every instruction goes
  // through the generic path: the same results, errors and observer events, more slowly (the
  // tests compare the two).
  bool fast_forms = true;
  // A load (ld/ldu) of shared memory or of an output tensor that no thread has written yet
  // waits: the thread is parked at the load until some other thread makes progress, then runs it
  // again. If another thread writes the place meanwhile, the load reads that value and the race
  // context sees an unordered write and read (a RAW race with both lines) instead of the run
  // stopping at an "uninitialized" read that was only early; if no thread can move while a load
  // waits, the first such load is the uninitialized-read error it always was. Off: the first
  // unwritten read stops the run at once.
  bool reads_wait_for_writes = true;
  // Warp-wide execution under the round-robin schedule in thread order: while a warp's lanes that
  // have not exited are all runnable at one instruction that touches nothing but the lane's own
  // registers and plain memory (its fast form; a data instruction, cvta or a parameter load on the
  // generic path), the instruction runs for each lane in turn before the next one, the warps
  // taking turns of warp_round instructions (exec/semantics/schedule.hpp, run_warp; check::run_cta
  // runs a warp-wide run that met a race, or an error other than a deadlock that round robin
  // reaches as it is (deadlock_is_round_robins), again with this off). Off: each thread runs
  // until it blocks.
  bool warp_wide = true;
  // The caller runs a warp-wide run that met a race or an error again under round robin
  // (check::run_cta) and throws the first away, so the rest of it would be wasted work (a racy
  // pair's first run went to the end: a third to a half of its time). A run that went warp-wide
  // then stops (run() returns as if complete) after the warp-wide instruction, warp turn or
  // thread's turn in a pass in which its observer found a race (an optional found_race();
  // engine::abandoned), and fails at once with the error of a lane that cannot run a warp-wide
  // instruction because it fails (without the option that lane is left for round robin, which
  // meets the error in its turn). Off: runs complete.
  bool stop_for_rerun = false;
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

// (The address windows, namespace address, are in exec/program.hpp: cvta's fast form adds them.)

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
  // Whether some lane ran an instruction warp-wide (engine_options::warp_wide), or a per-thread
  // pass broke off at a barrier's release to go warp-wide again (schedule), or a lane failed
  // warp-wide under stop_for_rerun. Such a run that stopped with an error, or whose observer
  // found a race, may have counted more steps, shown the observer other events first or (under
  // stop_for_rerun) stopped at another error than round robin's: check::run_cta runs it again
  // under round robin.
  bool went_warp_wide() const { return warp_steps_taken_; }
  // Whether error, the one run() returned, is a deadlock that round robin reaches as it is, steps
  // included, so that a warp-wide run that met it (and no race: the caller's part) need not run
  // again. Warp-wide
  // execution moves only data instructions (run_warp); every synchronizing instruction keeps round
  // robin's order, so without a race each thread runs the instructions it runs under round robin
  // and registers at the barriers it registers at in the same order: the same generations, the
  // same waiting threads. Only what the scheduler's passes themselves decide can differ: a load
  // parked to wait for a write counts a step at each retry, parked mbarrier waits are answered
  // false and held threads released when a pass moves nothing. A run that did any of those is
  // run again (scheduled_by_passes_).
  bool deadlock_is_round_robins(const run_error& error) const {
    return error.kind == error_kind::deadlock && !scheduled_by_passes_;
  }

  const run_stats& stats() const { return stats_; }
  D& domain() { return d_; }

  // The final value of an output tensor element (flat index): the stored cell, or nullopt when no
  // thread wrote it. Elements are read whole; a value stored in pieces is assembled if concrete.
  std::optional<value> output(std::uint32_t tensor, std::uint64_t element);
  // The elements of a tensor that some thread wrote, ascending: what to read with output(), at the
  // cost of the writes, not of the tensor's size (a GEMM CTA writes a tile of a large C).
  std::vector<std::uint64_t> written_elements(std::uint32_t tensor) const {
    return regions_[tensor].touched_elements();
  }
  // A cell as a finished domain value of kind k (bits become constants).
  typename D::result as_real(const value& c, rkind k) { return d_.finish(to_real(c, k, 0)); }
  // An output element's cell as a finished domain value: integer tensors read their bits with the
  // tensor's width and signedness (an s32 -62 is stored as 0xffffffc2).
  typename D::result output_value(std::uint32_t tensor, const value& c);

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
  static constexpr std::uint32_t warp_size = warp_threads;
  enum class status : std::uint8_t { runnable, at_barrier, at_warp, at_read, held, exited };
  // Thrown by load_pieces when a waitable load (read_waits_) finds a place nobody has written:
  // caught by run_thread/step_once, which park the thread at the load (status::at_read).
  struct read_wait {};

  struct pending_copy {  // cp.async: lands at wait_group
    std::uint64_t group;
    std::uint32_t instruction;
    std::uint32_t region;
    std::uint64_t offset;
    std::uint32_t width;
    value v;
  };

  // ---- setup (semantics/schedule.hpp) -------------------------------------------------------
  void setup();

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

  // ---- scheduling: the passes and the deadlock report in exec/semantics/schedule.hpp ------
  void schedule();
  // engine_options::stop_for_rerun: this run went warp-wide and its observer found a race, so it
  // will be run again under round robin; schedule() returns after the warp-wide instruction, warp
  // turn or thread's turn in a pass in which the race was found.
  bool abandoned() const {
    if constexpr (requires { o_.found_race(); })
      return options_.stop_for_rerun && warp_steps_taken_ && o_.found_race();
    return false;
  }
  bool run_warp(std::uint32_t w, std::uint32_t budget);
  // Instructions a warp runs warp-wide in one round of schedule() before the next warp's turn.
  static constexpr std::uint32_t warp_round = 1024;
  // The lanes [first, end) of one warp, all at pc, run instruction pc (fast form Op): whether every
  // lane ran it (see run_warp).
  template <fast_op Op>
  bool warp_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint8_t how);
  // The warp forms of some fast forms (semantics/dispatch.hpp): instruction pc for the lanes
  // [first, end) of one warp at once, in lane order, up to the first lane the form cannot take
  // (returned; `end` when all ran), each lane run as its fast form runs it, its pc advanced and
  // counted in `ran`. The lanes from the returned one on are untouched.
  template <fast_op Op>
  std::uint32_t warp_fast(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  void plan_warp_steps();
  struct warp_step {  // per instruction: how run_warp may run it (bits)
    static constexpr std::uint8_t none = 0, fast = 1, generic = 2;
  };
  [[noreturn]] void deadlock();
  // "threads 0..31, 64..95" / "thread 7" (linear ids, ascending): at most four ranges, then how
  // many more threads.
  static std::string threads_text(const std::vector<std::uint32_t>& ts);

  // Thread t exits at instruction pc (its ret or exit; no_instruction when it ran past the end).
  // PTX: a barrier that waits for all threads of the CTA is released when the exiting threads were
  // the only ones it still waited for (try_complete counts live threads only); CUDA's stricter
  // rule, that every thread reaches each __syncthreads, is the race context's strict mode.
  void exit_thread(std::uint32_t t, std::uint32_t pc);

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
    try {
      if (hold_ == hold_phase::armed || hold_ == hold_phase::holding) run_thread_holding(t);
      else run_thread_loop(t);
    } catch (const read_wait&) {
      wait_for_write(t);
    }
  }
  // Parks thread t at the load it is running (pc_[t]) until other threads have moved.
  void wait_for_write(std::uint32_t t) {
    read_waits_ = false;
    status_[t] = status::at_read;
    waiting_reads_.push_back(t);
    ++waits_this_pass_;
    scheduled_by_passes_ = true;
  }
  void run_thread_loop(std::uint32_t t);
  void step_once(std::uint32_t t);
  // The step limit, the progress callback and the memory limit, at the step counts where one of
  // them has something to do (next_check_).
  void checks(std::uint32_t t);
  void update_next_check();

  // Race-witness holds (engine_options::hold), defined in exec/semantics/hold.hpp.
  enum class hold_phase : std::uint8_t { off, armed, holding, done };
  void hold_setup();
  void run_thread_holding(std::uint32_t t);
  void hold_thread(std::uint32_t t);
  void release_hold();

  // ---- errors ------------------------------------------------------------------------------
  std::string thread_name(std::uint32_t t) const {
    const std::uint32_t u = clustered_ ? t % cta_threads_ : t;
    std::uint32_t x = u % l_.block[0], y = (u / l_.block[0]) % l_.block[1], z = u / (l_.block[0] * l_.block[1]);
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")" +
           (clustered_ ? " of cluster CTA rank " + std::to_string(rank_of(t)) : std::string());
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

  // ---- registers and operands: defined in exec/semantics/operands.hpp ----------------------
  // Registers are kept per warp in structure-of-arrays order, [warp][register][lane]: register r
  // of a warp's 32 lanes lie side by side, so an instruction run warp-wide (run_warp) reads and
  // writes one contiguous run of cells per operand instead of one cell in each lane's block.
  // lane_regs is one lane's view, indexed by register (the fast forms' `regs`).
  struct lane_regs {
    value* lane;  // the lane's register 0
    value& operator[](std::uint32_t r) const { return lane[std::size_t{r} * warp_size]; }
  };
  lane_regs lane_of(std::uint32_t t) {
    return {warp_regs(t) + t % warp_size};
  }
  value& reg(std::uint32_t t, std::uint32_t r) { return lane_of(t)[r]; }
  // The registers of the warp that thread t belongs to: register r of its lane l at [r * warp_size + l].
  value* warp_regs(std::uint32_t t) { return regs_.data() + std::size_t{t / warp_size} * nregs_ * warp_size; }
  std::uint64_t special(std::uint32_t t, special_reg s) const;
  std::uint64_t symbol_address(std::uint32_t t, std::uint32_t sym, std::uint64_t offset);
  std::uint32_t symbol_provenance(std::uint32_t sym) const {
    auto it = symbols_.find(sym);
    return it != symbols_.end() && it->second.k == symbol::kind::region ? it->second.index + 1 : 0;
  }
  value read(std::uint32_t t, const xoperand& o);
  // Undefined values (values.hpp): a register never written, or computed from one, holds an
  // undefined value, as in PTX. Data instructions (ptx::computes_data, from the opcode table's
  // families: moves and packing, integer, bit and float arithmetic, conversions, setp/set/selp,
  // the lifted functions; and shfl and the other data-moving warp collectives, which read their
  // data operand with read_data, collective.hpp) propagate it: their result is undefined. Every other use is
  // where the value matters, and is the uninitialized error at the using instruction: a store
  // (global, shared or local: the value is not stored undefined to fail at a later load, the
  // store itself is the error), an address, a guard or branch condition, a barrier operand or
  // member mask, an atomic's operands, a shfl lane or clamp. Outputs are memory, so an undefined
  // value reaches an output only through a store, which is the error.
  struct undefined_operand { value v; };
  [[noreturn, gnu::cold, gnu::noinline]] void undefined_read(std::uint32_t t, std::uint32_t r, const value& v);
  std::string register_name(std::uint32_t r) const {
    if (r == p_.carry_register) return "CC.CF (the carry flag)";
    return std::string(ptx::register_spelling(p_.str(p_.register_names[r])));
  }
  std::string undefined_message(std::uint32_t r, const value& v) const;
  value read_data(std::uint32_t t, const xoperand& o);
  void write_undefined(std::uint32_t t, const xinstr& x, const value& u);
  void write(std::uint32_t t, const xoperand& o, value v) {
    if (o.k == xoperand::kind::reg) reg(t, o.reg) = std::move(v);
    else if (o.k != xoperand::kind::sink) fail_at(error_kind::unsupported, t, "destination operand form");
  }
  // An undecided predicate's outcome where the domain runs a case split (exec/case_split.hpp:
  // the symbolic domain with one attached), else nullopt. A negated predicate (`negated`) is the
  // complement of the comparison's outcome.
  std::optional<bool> branch(const value& p) {
    if constexpr (requires { d_.branch(p.cmp, p.r, p.r2); }) {
      if (auto b = d_.branch(p.cmp, p.r, p.r2)) return *b != p.negated;
    }
    return std::nullopt;
  }
  bool truth(std::uint32_t t, const value& v);
  std::optional<real> packed_number(const value& v, rkind k, std::uint32_t t);
  std::pair<real, real> packed_halves(const value& v, rkind k, std::uint32_t t);
  std::optional<real> f32_word(std::uint64_t bits, std::uint32_t t);
  static std::string packed_number_error(rkind half);
  real to_real(const value& v, rkind k, std::uint32_t t);
  std::uint64_t to_bits(const value& v, std::uint32_t t);
  bool is_symbolic(const value& v);

  // ---- execution: defined in exec/semantics/dispatch.hpp ----------------------------------
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
  void generic_step(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void execute(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  std::string call_not_inlined(const xinstr& x) const;
  void grid_dependency_control(std::uint32_t t, const xinstr& x);
  static bool is_collective(ptx::opcode o) { return ptx::collective(o) != ptx::collective_kind::none; }
  // The opcode table's `own_modifiers` trait: matrix instructions spell shapes and layouts, the
  // async proxy's instructions dimensions, completion mechanisms, fields and proxies, griddepcontrol
  // its action, that no flag stands for; their semantics check what they accept.
  static bool tolerates_unknown(ptx::opcode o) { return ptx::checks_own_modifiers(o); }
  // Runs instruction pc's fast form (program.hpp) and returns the next pc; returns no_fast,
  // having changed nothing the run can observe, when the instruction has none or its operands are
  // not what the form expects (a guard that is not concrete, an unwritten register, a symbolic or
  // real value where bits are needed, a misaligned address, a store to constant memory): the
  // generic path then runs the instruction and reports any error itself.
  // Op as in fast_integer: the form's op, known to the caller, or none to read it from the form.
  static constexpr std::uint32_t no_fast = ~0u;
  template <fast_op Op = fast_op::none>
  [[gnu::always_inline]] std::uint32_t fast_step(std::uint32_t t, std::uint32_t pc);

  // ---- semantics: declared here, defined per family in exec/semantics/<family>.hpp -----------
  // move.hpp
  void mov(std::uint32_t t, const xinstr& x);
  void guarded_move(std::uint32_t t, const xinstr& x, const value& g);
  value pack(std::uint32_t t, const std::vector<value>& parts, std::uint32_t width);
  value piece(std::uint32_t t, const value& v, std::uint32_t i, std::uint32_t w);
  void cvta(std::uint32_t t, const xinstr& x);
  void isspacep(std::uint32_t t, const xinstr& x);
  // convert.hpp
  void cvt(std::uint32_t t, const xinstr& x);
  std::optional<std::int64_t> saturate_infinite(const real& r, rkind k);
  std::pair<real, real> fp8_pair(const value& a, rkind k, std::uint32_t t);
  // compare.hpp
  value compare(std::uint32_t t, const xinstr& x, const value& a, const value& b);
  value combine(std::uint32_t t, const xinstr& x, value p, const value& c);
  void setp(std::uint32_t t, const xinstr& x);
  void set(std::uint32_t t, const xinstr& x);
  void selp(std::uint32_t t, const xinstr& x);
  value choose(std::uint32_t t, const value& a, const value& b, const value& p);
  void slct(std::uint32_t t, const xinstr& x);
  // float.hpp
  void float_op(std::uint32_t t, const xinstr& x);
  void lifted(std::uint32_t t, const xinstr& x);
  void sign_and_class(std::uint32_t t, const xinstr& x);  // copysign, testp
  [[gnu::always_inline]] bool fast_float(std::uint32_t t, lane_regs regs, const fast_form& f);
  std::uint32_t warp_float(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  template <aop A>
  std::uint32_t warp_float_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  std::uint32_t warp_arith_lanes(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  bool fast_float_mixed(std::uint32_t t, lane_regs regs, const fast_form& f);
  [[gnu::always_inline]] void fast_float_finish(std::uint32_t t, lane_regs regs, const fast_form& f, real* args);
  // integer.hpp
  std::optional<aop> data_op(const xinstr& x) const;
  void integer_op(std::uint32_t t, const xinstr& x);
  std::optional<value> word_pair_op(std::uint32_t t, const xinstr& x, const value* in, std::size_t n);
  // Op: the form's op when the caller knows it (warp_lanes), so that its switch folds; none: read
  // from f.
  template <fast_op Op = fast_op::none>
  [[gnu::always_inline]] bool fast_integer(lane_regs regs, const fast_form& f);
  template <fast_op Op>
  std::uint32_t warp_integer(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  // memory.hpp
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
  // The address of a fast load or store: its base register plus offset, or, for a symbol
  // (fast_form::absolute: [tile+8]), the address setup found for the instruction (fixed_); false
  // where the generic path takes it (a base that holds no plain bits, a symbol that is no array).
  bool fast_address(lane_regs regs, const fast_form& f, std::uint32_t pc, address_value& a) const {
    if (f.absolute) [[unlikely]] {
      a = fixed_[pc];
      return a.provenance != 0;
    }
    const value& base = regs[f.base];
    if (base.t != value::tag::bits) return false;
    a = {base.bits + f.offset, base.provenance};
    return true;
  }
  void layout_memory(run_info& info);
  value param_value(std::uint32_t i);
  value bound_value(bool tensor, std::uint32_t index, vtype t);
  value param_field(std::uint32_t t, std::uint32_t i, std::uint64_t offset, std::uint32_t width);
  void add_region(memory_space space, const ptx::variable& v, std::uint64_t base, std::uint64_t size, std::uint32_t el);
  void initialize(region<real>& r, const ptx::variable& v, std::uint32_t el);
  address_value effective_address(std::uint32_t t, const xoperand& a);
  place locate(std::uint32_t t, ptx::state_space space, address_value where_to, std::uint32_t width);
  void observe(std::uint32_t t, const place& p, std::uint32_t width, access_kind kind, std::uint32_t pc,
               value_identity identity = {}, atomic_op op = atomic_op::none, bool async_visible = false);
  value_identity identity_of(const value& v);
  value load_cell(std::uint32_t t, region<real>& r, std::uint64_t offset, std::uint32_t width);
  [[gnu::noinline]] value load_pieces(std::uint32_t t, region<real>& r, std::uint64_t offset, std::uint32_t width);
  value assemble(region<real>& r, std::uint64_t offset, std::uint32_t width, std::uint32_t t, int in_thread);
  void check_alignment(std::uint32_t t, std::uint64_t addr, std::uint32_t width);
  std::uint32_t access_width(const xinstr& x) const;
  void load(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void store(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  [[gnu::always_inline]] place locate_fast(std::uint32_t t, std::uint32_t pc, ptx::state_space space, address_value a,
                                           std::uint32_t width);
  bool fast_load(std::uint32_t t, lane_regs regs, const fast_form& f, std::uint32_t pc);
  // The fast load's warp form (memory.hpp): runs the lanes it can, returns the first it cannot.
  std::uint32_t warp_load(std::uint32_t first, std::uint32_t end, std::uint32_t pc, std::uint32_t& ran);
  bool fast_store(std::uint32_t t, lane_regs regs, const fast_form& f, std::uint32_t pc);
  // atomic.hpp
  void atomic(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  // async_copy.hpp
  void cp_async(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void cp_async_wait(std::uint32_t t, std::uint64_t keep, bool all);
  void land_copy(std::uint32_t writer, pending_copy& c);
  void cp_async_mbarrier_arrive(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  // bulk_copy.hpp: the async proxy (TMA, bulk copies, proxy fences, tensor maps in memory)
  struct bulk_pending {  // a bulk-group copy not yet retired by wait_group
    std::uint64_t group;
    std::uint32_t done;  // its async_done generation
  };
  struct async_proxy_state {  // per thread
    std::uint32_t issues = 0, done = 0, fences = 0;  // generations of its three resources (exec/sync.hpp)
    std::uint64_t committed = 0;                     // bulk groups committed
    std::vector<bulk_pending> pending;
  };
  bool uses_async_proxy() const;
  bool has_mod(const xinstr& x, std::string_view m) const;
  void fence(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void async_issue(std::uint32_t t, std::uint32_t pc, bool reads_shared);
  std::uint32_t async_done(std::uint32_t t, std::uint32_t pc);
  tma::tensor_map read_map(std::uint32_t t, const xoperand& a, std::uint32_t observer_thread, std::uint32_t pc);
  void bulk_copy(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void bulk_move(std::uint32_t t, std::uint32_t agent, std::uint32_t pc, const place& from, const place& to,
                 std::uint32_t width, bool reduce, rkind k);
  void bulk_complete_tx(std::uint32_t t, std::uint32_t agent, address_value addr, std::uint32_t pc, std::uint64_t tx);
  void bulk_wait(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void tensormap_op(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  // barrier.hpp
  void barrier(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void try_complete(barrier_key key);
  std::uint32_t live_in_warp(std::uint32_t w) const;
  std::uint64_t live_lanes(std::uint32_t w) const;
  // mbarrier.hpp
  static constexpr std::int64_t max_mbarrier_count = (1 << 20) - 1;  // PTX: counts and tx-counts
  struct mbarrier_state {
    bool valid = false, invalidated = false;
    std::uint32_t expected = 0, pending = 0;
    std::int64_t tx = 0;              // transaction bytes expected and not yet completed
    std::uint32_t phase = 0;          // phases completed since init
    std::uint32_t generation_base = 0;  // phases of earlier inits of the object (observer generations)
    std::vector<barrier_registration> regs;  // releases into the current phase
    std::uint32_t unordered = 0;             // .relaxed arrivals and tx updates into it (no release)
    std::vector<std::uint32_t> pollers;       // threads parked at a wait for the current phase
    std::vector<std::uint32_t> woken;         // pollers the last completion woke, not yet back at their wait
  };
  struct mbarrier_ref {
    barrier_key key;
    mbarrier_state& m;
  };
  mbarrier_ref mbarrier_at(std::uint32_t t, const xinstr& x, const xoperand& a, std::uint32_t pc, access_kind kind);
  std::string resource_name(barrier_key key) const;
  // The CTA rank whose shared memory holds the mbarrier (its key is region << 32 | offset).
  std::uint32_t mbarrier_owner(barrier_key key) const { return region_rank(static_cast<std::uint32_t>(key.id >> 32)); }
  std::string mbarrier_progress(const mbarrier_state& m) const;
  void mbarrier_op(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  bool relaxed(std::uint32_t pc) const;
  void mbarrier_register(std::uint32_t t, barrier_key key, mbarrier_state& m, std::uint32_t pc);
  void mbarrier_try_complete(std::uint32_t t, barrier_key key, mbarrier_state& m);
  static std::vector<std::uint32_t> waiting_on(const mbarrier_state& m);
  void mbarrier_wait(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  bool mbarrier_answer_false();
  void mbarrier_tx(std::uint32_t t, barrier_key key, mbarrier_state& m, std::int64_t delta);
  // cluster.hpp
  static constexpr std::uint32_t max_cluster_ctas = 16;
  static constexpr unsigned rank_shift = 24;  // a .shared::cluster address: (rank + 1) << 24 | offset
  std::uint32_t cluster_setup();
  void cluster_layout();
  std::uint64_t cluster_special(std::uint32_t t, special_reg s) const;
  std::uint32_t rank_of(std::uint32_t t) const { return clustered_ ? t / cta_threads_ : 0; }
  std::uint32_t cluster_rank_of(std::uint32_t t, std::uint64_t& addr);
  place cluster_place(const place& p, std::uint32_t rank);
  void cluster_address(std::uint32_t t, const xinstr& x);
  void cluster_barrier(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void cluster_try_complete();
  // collective.hpp
  void arrive_warp(std::uint32_t t, const xinstr& x, std::uint32_t pc);
  void try_collective(std::uint32_t t);
  void collective(const xinstr& x, const std::vector<std::uint32_t>& members);
  void shfl(const xinstr& x, const std::vector<std::uint32_t>& members);
  void vote(const xinstr& x, const std::vector<std::uint32_t>& members);
  std::optional<value> undefined_among(const xinstr& x, const std::vector<std::uint32_t>& members);
  void match(const xinstr& x, const std::vector<std::uint32_t>& members);
  void redux(const xinstr& x, const std::vector<std::uint32_t>& members);
  void elect(const xinstr& x, const std::vector<std::uint32_t>& members);
  void setmaxnreg(const xinstr& x, const std::vector<std::uint32_t>& members);
  void setmaxnreg_finish();
  // tensor_core.hpp
  struct wmma_kind {  // a wmma fragment: which operand, its element type and domain kind
    fragments::operand which;
    fragments::element_type t;
    rkind k;
  };
  real fragment_element(std::uint32_t u, const std::vector<const xoperand*>& regs, std::uint32_t index, rkind k, bool half);
  void mma(const xinstr& x, const std::vector<std::uint32_t>& members);
  std::vector<real> product(const std::vector<real>& A, const std::vector<real>& B, const std::vector<real>& C,
                            std::uint32_t m, std::uint32_t n, std::uint32_t k, std::uint32_t t);
  void ldmatrix(const xinstr& x, const std::vector<std::uint32_t>& members);
  void stmatrix(const xinstr& x, const std::vector<std::uint32_t>& members);
  void movmatrix(const xinstr& x, const std::vector<std::uint32_t>& members);
  wmma_kind wmma_kind_of(const xinstr& x, std::uint32_t u);
  void wmma_load(const xinstr& x, const std::vector<std::uint32_t>& members);
  void wmma_store(const xinstr& x, const std::vector<std::uint32_t>& members);
  void wmma_mma(const xinstr& x, const std::vector<std::uint32_t>& members);
  // wgmma.hpp
  struct wgmma_shape;
  struct wgmma_warp;
  wgmma_shape wgmma_shape_of(const xinstr& x, std::uint32_t u);
  wgmma_warp& wgmma_state(std::uint32_t w);
  void wgmma_fence(const std::vector<std::uint32_t>& members);
  void wgmma_mma_async(const xinstr& x, const std::vector<std::uint32_t>& members);
  void wgmma_commit(const std::vector<std::uint32_t>& members);
  void wgmma_wait(const xinstr& x, const std::vector<std::uint32_t>& members);
  void wgmma_aligned(const std::vector<std::uint32_t>& members);
  std::string wgmma_in_flight_message(std::uint32_t r, std::uint32_t pc) const;

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
  std::vector<std::uint32_t> pc_, warp_mask_;
  std::vector<barrier_key> barrier_of_;  // per thread at a barrier: the resource it waits on
  std::vector<std::uint32_t> warp_generation_;
  // Per warp: what try_collective's last unfinished scan of the open generation established, so
  // that the next arrival does not scan the same lanes again (semantics/collective.hpp).
  struct collective_scan {
    std::uint32_t generation = 0;  // the warp generation it holds for (0: none; they start at 1)
    std::uint32_t mask = 0;        // the member mask it scanned
    std::uint32_t lanes = 0;       // members below this lane are arrived (or exited) and agree
    std::uint32_t pc = 0;          // ... with the collective at this instruction
  };
  std::vector<collective_scan> collective_scan_;
  // Per warp: the setmaxnreg instructions it executed, in order, with their register counts
  // (semantics/collective.hpp checks that a warpgroup's warps execute the same ones).
  struct register_count_change {
    std::uint32_t instruction, count;
  };
  std::vector<std::vector<register_count_change>> setmaxnreg_;
  // wgmma (semantics/wgmma.hpp): per warp its issued wgmma.mma_async groups and, per lane, the
  // registers in-flight ones will write; allocated on a warp's first wgmma (the type is
  // completed there).
  std::vector<std::shared_ptr<wgmma_warp>> wgmma_warps_;
  // A polled generation every member of the running warp collective acquires once the warp's
  // sync has completed (try_collective; the sync's completion would replace an earlier acquire):
  // the agent reads a wgmma.wait_group retires.
  std::optional<std::pair<barrier_key, std::uint32_t>> collective_acquires_;
  sync_table sync_;  // CTA barriers (exec/sync.hpp); warp syncs keep warp_generation_
  std::map<barrier_key, mbarrier_state> mbarriers_;  // by shared-memory place (ordered: messages)
  // mbarrier_answer_false: rounds of false answers in which no phase waited on completed, and the
  // mbarriers (with their phase) the last round answered.
  std::uint32_t false_rounds_ = 0;
  std::vector<std::pair<barrier_key, std::uint32_t>> false_answered_;
  static constexpr std::uint32_t max_false_rounds = 64;
  bool read_waits_ = false;                    // a load that may wait for a write is running
  std::vector<std::uint32_t> waiting_reads_;   // threads parked at such a load (status::at_read)
  std::uint64_t waits_this_pass_ = 0;          // loads parked in the scheduler's current pass
  hold_phase hold_ = hold_phase::off;          // engine_options::hold: armed until a thread is held
  std::vector<bool> hold_mask_;                // per thread: listed in the hold
  std::vector<std::uint32_t> held_;            // threads held now (status::held)
  std::map<std::uint32_t, bool> red_value_;
  std::vector<std::vector<pending_copy>> copies_;
  std::vector<std::uint64_t> copy_group_;
  std::vector<async_proxy_state> proxy_;  // per thread (bulk_copy.hpp)
  // Clusters (cluster.hpp): whether this run is a cluster's, threads per CTA, CTAs, live threads
  // per CTA, per thread the cluster-barrier generation it arrived on and not yet waited for (and
  // whether relaxed), the first region that is a CTA's copy of a shared array, and per shared
  // region index i of rank 0 its copy in rank r at [i * cluster_ctas_ + r].
  bool clustered_ = false;
  std::uint32_t cta_threads_ = 0, cluster_ctas_ = 1, first_copy_ = 0;
  std::vector<std::uint32_t> cta_live_, cluster_arrived_, rank_region_;
  std::vector<std::uint32_t> region_rank_;  // per region: the CTA rank whose memory it is (cluster runs)
  std::uint32_t region_rank(std::uint32_t i) const { return i < region_rank_.size() ? region_rank_[i] : 0; }
  std::vector<bool> cluster_relaxed_;

  std::vector<region<real>> regions_;
  std::vector<std::uint32_t> shared_order_, global_order_;
  std::vector<std::unique_ptr<region<real>>> locals_;
  std::uint64_t local_top_ = 0, shared_bytes_ = 0;
  std::uint64_t rng_ = 0;

  boost::unordered_flat_map<std::uint32_t, symbol> symbols_;
  std::vector<std::uint32_t> dynamic_symbols_;
  std::vector<value> params_;
  std::vector<std::vector<value>> param_fields_;  // per struct parameter, its fields' values

  // A region as locate_fast sees it: bytes is 0 unless no other region of its window starts
  // inside it (only then is an address within it found without the search).
  struct fast_window {
    std::uint64_t base = 0, bytes = 0;
    region<real>* r = nullptr;
    bool shared = false;
  };
  bool fast_forms_ = false;           // run the program's fast forms
  bool warp_wide_ = false;            // engine_options::warp_wide, where the schedule allows it
  std::vector<std::uint8_t> warp_steps_;  // per instruction: warp_step bits (plan_warp_steps)
  bool warp_whole_ = false;               // run_warp's warp has no exited lane: its warp forms
                                          // index lanes densely, without looking at status_
  bool warp_steps_taken_ = false;         // some lane ran an instruction in run_warp, or a pass
                                          // broke off at a barrier's release (schedule)
  bool break_at_release_ = false;         // schedule's per-thread pass breaks off at a barrier's release
  bool barrier_released_ = false;         // ... and one was released (try_complete)
  // A load parked, parked mbarrier waits were answered false or held threads released: what the
  // run did depends on where the scheduler's passes began and ended (deadlock_is_round_robins).
  bool scheduled_by_passes_ = false;
  std::uint32_t resume_from_ = 0;         // the thread the next per-thread pass starts with
  std::uint64_t next_check_ = 0;      // the step count at which checks() runs next
  std::vector<fast_window> windows_;       // per region
  std::vector<std::uint32_t> hint_;   // per instruction: the region it last accessed, or ~0u
  // Per instruction: the address of a fast load or store of a symbol (fast_address), the same for
  // every thread (a cluster run, whose shared symbols depend on the CTA, has no fast forms);
  // provenance 0 where the symbol is no array.
  std::vector<address_value> fixed_;
  // Per instruction: the kernel parameter a fast ld.param reads whole (fast_op::ld_param), or ~0u
  // (a struct passed by value, a name that is no parameter: the generic path).
  std::vector<std::uint32_t> param_at_;
};

}  // namespace gpueq::exec

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The semantics of the instruction families: member functions of engine declared above, defined
// out of line, each family's generic and fast forms side by side. Each header includes this one,
// so any of them alone gives the whole engine.
#include <gpueq/exec/semantics/operands.hpp>
#include <gpueq/exec/semantics/dispatch.hpp>
#include <gpueq/exec/semantics/schedule.hpp>
#include <gpueq/exec/semantics/move.hpp>
#include <gpueq/exec/semantics/convert.hpp>
#include <gpueq/exec/semantics/compare.hpp>
#include <gpueq/exec/semantics/float.hpp>
#include <gpueq/exec/semantics/integer.hpp>
#include <gpueq/exec/semantics/memory.hpp>
#include <gpueq/exec/semantics/atomic.hpp>
#include <gpueq/exec/semantics/async_copy.hpp>
#include <gpueq/exec/semantics/bulk_copy.hpp>
#include <gpueq/exec/semantics/barrier.hpp>
#include <gpueq/exec/semantics/mbarrier.hpp>
#include <gpueq/exec/semantics/collective.hpp>
#include <gpueq/exec/semantics/tensor_core.hpp>
#include <gpueq/exec/semantics/wgmma.hpp>
#include <gpueq/exec/semantics/cluster.hpp>
#include <gpueq/exec/semantics/hold.hpp>
