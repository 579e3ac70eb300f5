// gpueq::compiled: the race driver's entry point (race::check_races), compiled once here
// (include/gpueq/support/entry.hpp).
#include <gpueq/race/driver_entries.hpp>
