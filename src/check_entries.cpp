// gpueq::compiled: check's entry points (check_pair, check_kernels, check_against_spec,
// run_outputs; resolve and resolve_kernel), compiled once here for programs that link the library
// instead of compiling the pipeline themselves (include/gpueq/support/entry.hpp). In one file, so
// that the entry points share their instantiations of the engine.
#include <gpueq/check/driver_entries.hpp>
#include <gpueq/check/spec_entries.hpp>
