// --max-memory by accounting: the tool replaces the global operator new/delete (and GMP's
// allocation functions) with versions that keep the number of heap bytes the process holds, so the
// limit holds in every subcommand and in every phase (parsing, running, normal forms, reports),
// not only where the engine polls its resident memory.
//
// An allocation that would take the live heap past the budget fails with memory_budget_exceeded
// (a std::bad_alloc), which the subcommand reports as a resource limit, exit 5. GMP must not see an
// exception (its allocation functions may not return on failure, nor throw): its blocks are
// counted, and the next C++ allocation past the budget fails instead. GMP's numbers stay bounded by
// the exact domain's bit limit and by --max-expansion. What is not counted: the stacks, the
// executable's own pages, memory the C library maps for itself, and every block allocated before
// the budget is set (the command line's parsing: a few KiB), whose release only makes the count
// low. Without --max-memory nothing is counted: an allocation is malloc's, at malloc's cost.
#include "commands.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#define GPUEQ_CLI_ACCOUNTING 1
#endif

#if GPUEQ_CLI_ACCOUNTING && GPUEQ_HAVE_GMP
#include <gmp.h>
#endif

namespace gpueq::cli {
namespace {
// Signed: a GMP block allocated before the tool installed its functions (a static initializer's)
// is released without having been charged, which may only make the count low, never wrap.
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::size_t> budget_bytes{0};  // 0: no limit, and no block is charged or released

#if GPUEQ_CLI_ACCOUNTING
std::size_t charge(void* p) {
  auto n = static_cast<std::int64_t>(malloc_usable_size(p));
  std::int64_t now = live_bytes.fetch_add(n, std::memory_order_relaxed) + n;
  return now > 0 ? static_cast<std::size_t>(now) : 0;
}
void release(void* p) {
  if (p) live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
}

void* counted(void* p, std::size_t request) {
  if (!p) throw std::bad_alloc();
  const std::size_t budget = budget_bytes.load(std::memory_order_relaxed);
  if (!budget) return p;
  std::size_t now = charge(p);
  if (now > budget) {
    release(p);
    std::free(p);
    throw memory_budget_exceeded(request, now, budget);
  }
  return p;
}

void* allocate(std::size_t n) { return counted(std::malloc(n ? n : 1), n); }
void* allocate(std::size_t n, std::align_val_t al) {
  std::size_t a = static_cast<std::size_t>(al);
  std::size_t rounded = (n + a - 1) / a * a;  // aligned_alloc wants a multiple of the alignment
  return counted(std::aligned_alloc(a, rounded ? rounded : a), n);
}
void deallocate(void* p) {
  if (budget_bytes.load(std::memory_order_relaxed)) release(p);
  std::free(p);
}

#if GPUEQ_HAVE_GMP
// GMP's blocks, charged; GMP cannot take a failure back, so one ends the process.
void* gmp_counted(void* p) {
  if (!p) {
    std::fputs("gpueq: error: resource limit: out of memory (in GMP)\n", stderr);
    std::exit(exit_resource);
  }
  charge(p);
  return p;
}
void* gmp_allocate(std::size_t n) { return gmp_counted(std::malloc(n)); }
void* gmp_reallocate(void* p, std::size_t, std::size_t n) {
  release(p);
  return gmp_counted(std::realloc(p, n));
}
void gmp_free(void* p, std::size_t) { deallocate(p); }
#endif
#endif
}  // namespace

// The message is built in a fixed buffer: a std::string would allocate while over the budget.
memory_budget_exceeded::memory_budget_exceeded(std::size_t request, std::size_t live, std::size_t budget) {
  std::snprintf(text_, sizeof text_,
                "--max-memory %zu MiB reached: an allocation of %zu bytes would take the heap to %zu MiB",
                budget >> 20, request, live >> 20);
}

bool set_memory_budget(std::uint64_t mib) {
#if GPUEQ_CLI_ACCOUNTING
  if (mib == 0) return true;  // no limit: nothing to count
#if GPUEQ_HAVE_GMP
  static const bool gmp_counted = (mp_set_memory_functions(gmp_allocate, gmp_reallocate, gmp_free), true);
  (void)gmp_counted;
#endif
  // (Before any worker thread starts: from here on every block is charged and released.)
  budget_bytes.store(static_cast<std::size_t>(mib) << 20, std::memory_order_relaxed);
  return true;
#else
  (void)mib;
  return false;
#endif
}

}  // namespace gpueq::cli

#if GPUEQ_CLI_ACCOUNTING
void* operator new(std::size_t n) { return gpueq::cli::allocate(n); }
void* operator new[](std::size_t n) { return gpueq::cli::allocate(n); }
void* operator new(std::size_t n, std::align_val_t al) { return gpueq::cli::allocate(n, al); }
void* operator new[](std::size_t n, std::align_val_t al) { return gpueq::cli::allocate(n, al); }
void operator delete(void* p) noexcept { gpueq::cli::deallocate(p); }
void operator delete[](void* p) noexcept { gpueq::cli::deallocate(p); }
void operator delete(void* p, std::size_t) noexcept { gpueq::cli::deallocate(p); }
void operator delete[](void* p, std::size_t) noexcept { gpueq::cli::deallocate(p); }
void operator delete(void* p, std::align_val_t) noexcept { gpueq::cli::deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { gpueq::cli::deallocate(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { gpueq::cli::deallocate(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { gpueq::cli::deallocate(p); }
#endif
