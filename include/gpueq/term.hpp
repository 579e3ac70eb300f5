// The term module: hash-consed real-valued terms, their text syntax and printing.
#pragma once

#include <gpueq/term/parse.hpp>
#include <gpueq/term/print.hpp>
#include <gpueq/term/store.hpp>
