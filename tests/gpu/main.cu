// Catch2 main, with a note when [gpu] tests are asked for on a machine without a device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "fastscan_tests: no CUDA device here; only [host] tests can pass on this machine.\n");
  }
  return Catch::Session().run(argc, argv);
}
