// The bool tests of the dtype sweep (cummax / cummin, cumsum): the bool kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", bool) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", bool) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_bool{"cummax / cummin bool", &fuzz_extreme<bool>};
static const fuzz_registration fuzz_wider_sum_bool{"cumsum bool into the wider type", &fuzz_sum<bool, wider_t<bool>>};

// Frameworks store bool as a byte and read any nonzero byte as true (torch's u8.view(torch.bool));
// sums, extremes, their indices and the values written follow the truth, not the byte. Shapes take
// the row kernel (staged and, off the 16-byte grid, direct loads) and the column kernels.
TEST_CASE("bool bytes other than 0 and 1 read as true", "[gpu][sum][extreme]") {
  const std::uint8_t pattern[] = {2, 0, 3, 1, 255, 0, 7, 0, 0, 128, 1, 0, 64};
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, 7, 1}, fastscan::Shape3{3, 100003, 1}, fastscan::Shape3{1, 4099, 5},
                                   fastscan::Shape3{1, 70001, 16}, fastscan::Shape3{257, 33, 3}}) {
    for (const std::int64_t offset : {0, 1}) {
      CAPTURE(shape_name(s), offset);
      const std::int64_t n = s.outer * s.len * s.inner;
      std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n + offset));
      for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = pattern[(i * 7 + i / 13) % sizeof pattern];
      }
      host_array<bool> truth(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        truth[static_cast<std::size_t>(i)] = bytes[static_cast<std::size_t>(i + offset)] != 0;
      }
      device_buffer<std::uint8_t> d_bytes(bytes.size());
      d_bytes.upload(bytes);
      const bool* in = reinterpret_cast<const bool*>(d_bytes.ptr + offset);

      std::vector<double> sums, magnitudes;
      std::vector<std::int64_t> exact;
      reference_sum<bool, std::int64_t>(truth, sums, magnitudes, exact, s, false);
      device_buffer<std::int64_t> d_sums(static_cast<std::size_t>(n));
      d_sums.poison();
      CUDA_REQUIRE((fastscan::cumsum<bool, std::int64_t>(in, d_sums.ptr, s)));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      CHECK(d_sums.download().to_vector() == exact);

      for (const bool take_min : {false, true}) {
        CAPTURE(take_min);
        host_array<bool> values;
        std::vector<std::int64_t> indices;
        reference_extreme(truth, values, indices, s, take_min, false);
        device_buffer<std::uint8_t> d_values(static_cast<std::size_t>(n));
        device_buffer<std::int64_t> d_indices(static_cast<std::size_t>(n));
        d_values.poison();
        d_indices.poison();
        auto* v = reinterpret_cast<bool*>(d_values.ptr);
        CUDA_REQUIRE(take_min ? fastscan::cummin(in, v, d_indices.ptr, s) : fastscan::cummax(in, v, d_indices.ptr, s));
        CUDA_REQUIRE(cudaDeviceSynchronize());
        const auto got = d_values.download();
        std::int64_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          bad += got[i] != static_cast<std::uint8_t>(values[i]);  // written as 0 or 1
        }
        CHECK(bad == 0);
        CHECK(d_indices.download().to_vector() == indices);
      }
    }
  }
}
