// Catch2's runner lives in its own translation unit so that test files compile independently.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
