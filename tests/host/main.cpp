// Catch2's main for the host tests (no device, no CUDA runtime calls).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
