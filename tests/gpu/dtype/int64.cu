// The int64 tests of the dtype sweep (cummax / cummin, cumsum): the int64 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", std::int64_t) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", std::int64_t) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum of inputs and outputs off the 16-byte grid", "[gpu][sum]", std::int64_t) {
  check_sum_off_grid<TestType>();
}

TEST_CASE("cummax of inputs and outputs off the 16-byte grid", "[gpu][extreme]") {
  // One element past an allocation: inputs, values or indices leave the coalesced paths.
  std::uint64_t seed = 700;
  for (const fastscan::Shape3 s : {fastscan::Shape3{3, 100003, 1}, fastscan::Shape3{1, 70001, 1}, fastscan::Shape3{2, 517, 64},
                                   fastscan::Shape3{1, 30001, 4}}) {
    for (const int shift : {0, 1, 2, 3}) {  // bits: input shifted, outputs shifted
      const int in_shift = shift & 1, out_shift = shift >> 1;
      CAPTURE(shape_name(s), in_shift, out_shift);
      const auto numel = static_cast<std::size_t>(s.outer * s.len * s.inner);
      const auto in = random_values<std::int64_t>(numel, ++seed);
      device_buffer<std::int64_t> d_in(numel + 1), d_values(numel + 1), d_indices(numel + 1);
      CUDA_REQUIRE(cudaMemcpy(d_in.ptr + in_shift, in.data(), numel * sizeof(std::int64_t), cudaMemcpyHostToDevice));
      d_values.poison();
      d_indices.poison();
      std::size_t temp_bytes = 0;
      const std::int64_t* x = d_in.ptr + in_shift;
      CUDA_REQUIRE(fastscan::cummax(nullptr, temp_bytes, x, d_values.ptr + out_shift, d_indices.ptr + out_shift, s));
      device_buffer<unsigned char> temp(temp_bytes);
      CUDA_REQUIRE(fastscan::cummax(temp.ptr, temp_bytes, x, d_values.ptr + out_shift, d_indices.ptr + out_shift, s));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      host_array<std::int64_t> want;
      std::vector<std::int64_t> want_idx;
      reference_extreme(in, want, want_idx, s, false, false);
      const auto values = d_values.download();
      const auto indices = d_indices.download();
      std::size_t bad = 0;
      for (std::size_t i = 0; i < numel; ++i) {
        const std::size_t at = i + static_cast<std::size_t>(out_shift);
        bad += values[at] != want[i] || indices[at] != want_idx[i];
      }
      CHECK(bad == 0);
    }
  }
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_int64{"cummax / cummin int64", &fuzz_extreme<std::int64_t>};
static const fuzz_registration fuzz_sum_int64{"cumsum int64", &fuzz_sum<std::int64_t, std::int64_t>};
