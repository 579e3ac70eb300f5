// gpueq::compiled: the PTX front end's entry points (ptx::parse, ptx::parse_file, ptx::lift),
// compiled once here instead of in every program that reads a kernel (include/gpueq/support/entry.hpp).
#include <gpueq/ptx/lift_entries.hpp>
#include <gpueq/ptx/parser_entries.hpp>
