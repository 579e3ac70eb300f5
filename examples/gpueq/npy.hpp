// The .npy reader and writer of `gpueq run` are the library's (include/gpueq/check/npy.hpp), which
// also reads a spec's `"contents": {"npy": FILE}`; the CLI names them cli::npy.
#pragma once

#include <gpueq/check/npy.hpp>

namespace gpueq::cli {
namespace npy = check::npy;
}  // namespace gpueq::cli
