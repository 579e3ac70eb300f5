// Entry points that may come precompiled. gpueq is header-only by default: every function is
// `inline` and a program compiles what it calls. The few entry points whose bodies pull in the
// whole pipeline (check::check_pair and its two paths, check::run_outputs, race::check_races) cost
// a program that calls them most of its compile time (about 75 s and 2 GB at -O2 for one file), and
// the front end's (ptx::parse and parse_file, ptx::lift, check::resolve and resolve_kernel) about
// 12 s at -O3 in every file that reads a kernel, so they can also come from the optional static
// library gpueq::compiled (CMake target gpueq_compiled, sources in src/):
//
// - header-only (the default, GPUEQ_COMPILED undefined or 0): GPUEQ_ENTRY is `inline` and the
//   header that declares an entry point includes the file with its body (`*_entries.hpp`);
// - a program linking gpueq::compiled gets GPUEQ_COMPILED=1 from the target: the entry points
//   are declarations only (GPUEQ_ENTRY is empty), their bodies are not compiled, and the linker
//   takes them from the library, whose sources include the `*_entries.hpp` files themselves.
//
// Every translation unit of a program must agree on GPUEQ_COMPILED (the target sees to it): a
// program with both would have an inline and an out-of-line definition of one function.
#pragma once

#if defined(GPUEQ_COMPILED) && GPUEQ_COMPILED
#define GPUEQ_ENTRY
#define GPUEQ_ENTRY_BODIES 0
#else
#define GPUEQ_ENTRY inline
#define GPUEQ_ENTRY_BODIES 1
#endif
