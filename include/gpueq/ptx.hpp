// gpueq::ptx: the PTX front-end. Parse PTX text into a kernel IR (ptx::module), print it back as
// PTX, and lift nvcc's math-library idioms (expf, __expf, logf, tanhf, ...) into real functions.
// The opcode table says which instructions the engine executes; unsupported_instructions lists a
// kernel's others before it runs.
#pragma once

#include <gpueq/ptx/compare.hpp>
#include <gpueq/ptx/inline.hpp>
#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lexer.hpp>
#include <gpueq/ptx/parser.hpp>
#include <gpueq/ptx/printer.hpp>
#include <gpueq/ptx/lift.hpp>
#include <gpueq/ptx/opcodes.hpp>
#include <gpueq/ptx/unsupported.hpp>
