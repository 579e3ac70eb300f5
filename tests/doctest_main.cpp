// The one doctest main of the test suite, compiled once and linked into every module's tests.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
