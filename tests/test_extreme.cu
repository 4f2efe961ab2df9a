// cummax / cummin against the sequential framework rule, on every dtype, both index types, both
// tie policies, and shapes at the edges of the plans: integer and bool types here, floating-point
// types in test_extreme_float.cu.
#include "extreme_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", bool,
                   std::uint8_t, std::int8_t, std::int16_t, std::int32_t, std::int64_t) {
  check_all_shapes<TestType>();
}

namespace {
std::vector<std::int64_t> framework_indices(const std::vector<double>& x, fastscan::Extreme e, host_array<double>* values) {
  device_buffer<double> d_in(x.size()), d_v(x.size());
  device_buffer<std::int64_t> d_i(x.size());
  d_in.upload(x);
  d_v.poison();
  d_i.poison();
  CUDA_REQUIRE(fastscan::extreme_scan(d_in.ptr, d_v.ptr, d_i.ptr, {1, static_cast<std::int64_t>(x.size()), 1}, e,
                                      fastscan::Tie::last));
  if (values != nullptr) *values = d_v.download();
  return d_i.download().to_vector();
}
}  // namespace

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

TEST_CASE("cummax and cummin reproduce the framework examples", "[gpu][extreme]") {
  CHECK(framework_indices({2, 2, 1, 1, 3, 3}, fastscan::Extreme::max, nullptr) ==
        std::vector<std::int64_t>{0, 1, 1, 1, 4, 5});
  CHECK(framework_indices({2, 2, 1, 1, 3, 3}, fastscan::Extreme::min, nullptr) ==
        std::vector<std::int64_t>{0, 1, 2, 3, 3, 3});
  host_array<double> values;
  CHECK(framework_indices({1, 3, 3, 2, NAN, 5, NAN}, fastscan::Extreme::max, &values) ==
        std::vector<std::int64_t>{0, 1, 2, 2, 4, 4, 6});
  CHECK(values[3] == 3);
  CHECK(std::isnan(values[4]));
  CHECK(std::isnan(values[5]));
  CHECK(std::isnan(values[6]));
}
