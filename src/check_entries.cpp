// gpueq::compiled: check's entry points (check_pair, check_kernels, check_against_spec), compiled
// once here for programs that link the library instead of compiling the pipeline themselves
// (include/gpueq/support/entry.hpp).
#include <gpueq/check/driver_entries.hpp>
