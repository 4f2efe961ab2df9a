// inclusive_scan with user operators and iterators, and the block_scan collective on its own.
#include "common.cuh"
#include "fuzz.cuh"

#include "../support/affine_maps.cuh"
#include "../support/odd_types.cuh"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

using namespace fstest;

// Operator types of the tests below (and one in an unnamed namespace, as callers often write them).
namespace generic_ops {

//! 2x2 matrices mod 2^32: a 16-byte accumulator, too wide for the packed tile state.
struct mat2 {
  std::uint32_t m[4];
};
struct matmul {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3], x.m[2] * y.m[0] + x.m[3] * y.m[2],
             x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
  }
};
bool operator==(const mat2& x, const mat2& y) { return std::memcmp(&x, &y, sizeof(mat2)) == 0; }

//! Output functor: writes 3 * x + 1 as int64.
struct affine_out {
  __host__ __device__ std::int64_t operator()(std::int32_t x) const { return 3 * std::int64_t{x} + 1; }
};
//! Output functor: writes 2 * x.
struct double_out {
  __host__ __device__ std::int64_t operator()(std::int64_t x) const { return 2 * x; }
};

}  // namespace generic_ops

using namespace generic_ops;
using affine_maps::affine;
using affine_maps::compose_affine;

namespace {

template <class T, class Op, class Make>
void check_generic(fastscan::Shape3 s, Op op, Make make) {
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  std::mt19937 rng(static_cast<unsigned>(n));
  std::vector<T> in(n);
  for (auto& x : in) x = make(rng);
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::inclusive_scan(nullptr, bytes, d_in.ptr, d_out.ptr, op, s));
  device_buffer<unsigned char> temp(bytes);
  CUDA_REQUIRE(fastscan::inclusive_scan(temp.ptr, bytes, d_in.ptr, d_out.ptr, op, s));
  const auto got = d_out.download();
  std::size_t bad = 0;
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t c = 0; c < s.inner; ++c) {
      T run{};
      for (std::int64_t i = 0; i < s.len; ++i) {
        const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
        run = i == 0 ? in[at] : op(run, in[at]);
        bad += !(got[at] == run);
      }
    }
  }
  CHECK(bad == 0);
}

//! One random case of inclusive_scan with the non-commutative affine maps for the shape fuzzer.
void fuzz_affine(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto s = fuzz_shape(rng, 4096, 2048);
  CAPTURE(shape_name(s), seed);
  check_generic<affine>(s, compose_affine{}, [](std::mt19937& r) {
    return affine{static_cast<std::uint32_t>(r() | 1u), static_cast<std::uint32_t>(r())};
  });
}
const fuzz_registration fuzz_generic_affine{"inclusive_scan of affine maps", &fuzz_affine};

}  // namespace

TEST_CASE("inclusive_scan with a non-commutative operator", "[gpu][generic]") {
  auto make_affine = [](std::mt19937& rng) { return affine{static_cast<std::uint32_t>(rng() | 1u), static_cast<std::uint32_t>(rng())}; };
  auto make_mat = [](std::mt19937& rng) {
    return mat2{{static_cast<std::uint32_t>(rng() % 5), static_cast<std::uint32_t>(rng() % 5),
                 static_cast<std::uint32_t>(rng() % 5), static_cast<std::uint32_t>(rng() % 5)}};
  };
  for (fastscan::Shape3 s : {fastscan::Shape3{1, 1, 1}, fastscan::Shape3{1, 100003, 1}, fastscan::Shape3{37, 4099, 1},
                             fastscan::Shape3{3, 5001, 5}, fastscan::Shape3{1, 70000, 1}, fastscan::Shape3{2, 3, 300}}) {
    CAPTURE(shape_name(s));
    check_generic<affine>(s, compose_affine{}, make_affine);
    check_generic<mat2>(s, matmul{}, make_mat);
  }
}

namespace {
//! Kernels instantiated on a type of an unnamed namespace have internal linkage: they must compile
//! without a warning (this file builds with warnings as errors) and run.
struct local_max {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
}  // namespace

TEST_CASE("inclusive_scan with an operator from an unnamed namespace", "[gpu][generic]") {
  for (fastscan::Shape3 s : {fastscan::Shape3{1, 100003, 1}, fastscan::Shape3{3, 5001, 5}, fastscan::Shape3{2, 3, 300}}) {
    CAPTURE(shape_name(s));
    check_generic<int>(s, local_max{}, [](std::mt19937& r) { return static_cast<int>(r() % 1000) - 500; });
  }
}

TEST_CASE("inclusive_scan of elements of 3 and 6 bytes", "[gpu][generic]") {
  // Sizes that are neither powers of two nor divisors of 16: the column kernel for every layout,
  // with power-of-two tiles (host/plan_properties.cpp), rows, long rows and columns.
  using odd_sizes::rgb;
  using odd_sizes::six;
  auto make_rgb = [](std::mt19937& rng) {
    return rgb{static_cast<unsigned char>(rng()), static_cast<unsigned char>(rng()), static_cast<unsigned char>(rng())};
  };
  auto make_six = [](std::mt19937& rng) {
    return six{{static_cast<short>(rng() % 7 - 3), static_cast<short>(rng()), static_cast<short>(rng() % 3)}};
  };
  for (fastscan::Shape3 s : {fastscan::Shape3{1, 1, 1}, fastscan::Shape3{1, 100000, 1}, fastscan::Shape3{3, 4099, 1},
                             fastscan::Shape3{1, 65536, 7}, fastscan::Shape3{2, 1000, 300}, fastscan::Shape3{1, 16, 100000}}) {
    CAPTURE(shape_name(s));
    check_generic<rgb>(s, odd_sizes::rgb_max{}, make_rgb);
    check_generic<six>(s, odd_sizes::six_sum{}, make_six);
  }
}

TEST_CASE("inclusive_scan writes to a wider type and through an output iterator", "[gpu][generic]") {
  // int32 sums (the accumulator is the input's type), converted to int64 as they are written:
  // through an int64 pointer, and through a transform iterator into int64. Rows, long rows with a
  // look-back, columns with and without one.
  for (const fastscan::Shape3 s : {fastscan::Shape3{3, 300001, 1}, fastscan::Shape3{1, 65536, 1},
                                   fastscan::Shape3{7, 13, 1}, fastscan::Shape3{2, 1000, 37},
                                   fastscan::Shape3{1, 70001, 3}}) {
    CAPTURE(shape_name(s));
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    std::mt19937 rng(static_cast<unsigned>(n));
    std::vector<std::int32_t> in(n);
    for (auto& x : in) x = static_cast<std::int32_t>(rng() % 7) - 3;
    device_buffer<std::int32_t> d_in(n);
    d_in.upload(in);
    device_buffer<std::int64_t> wide(n), mapped(n);
    wide.poison();
    mapped.poison();
    const std::int32_t* first = d_in.ptr;
    CUDA_REQUIRE(fastscan::inclusive_scan(first, wide.ptr, fastscan::sum_op{}, s));
    CUDA_REQUIRE(fastscan::inclusive_scan(first, thrust::make_transform_output_iterator(mapped.ptr, affine_out{}),
                                          fastscan::sum_op{}, s));
    const auto got_wide = wide.download();
    const auto got_mapped = mapped.download();
    std::size_t bad = 0;
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t c = 0; c < s.inner; ++c) {
        std::int64_t run = 0;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
          run += in[at];
          bad += got_wide[at] != run;
          bad += got_mapped[at] != 3 * run + 1;
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("int64 sums of one long row write through an output iterator", "[gpu][generic]") {
  // One long aligned row of 8-byte sums takes the pipelined kernel, which stores arrays by bulk
  // copies: an output iterator must take a kernel that writes element by element.
  for (const std::int64_t len : {(std::int64_t{1} << 20) + 5, std::int64_t{3000017}}) {
    const fastscan::Shape3 s{1, len, 1};
    CAPTURE(shape_name(s));
    const auto n = static_cast<std::size_t>(len);
    std::mt19937 rng(static_cast<unsigned>(n));
    std::vector<std::int64_t> in(n);
    for (auto& x : in) x = static_cast<std::int64_t>(rng() % 2001) - 1000;
    device_buffer<std::int64_t> d_in(n), out(n);
    d_in.upload(in);
    out.poison();
    const std::int64_t* first = d_in.ptr;
    CUDA_REQUIRE(fastscan::inclusive_scan(first, thrust::make_transform_output_iterator(out.ptr, double_out{}),
                                          fastscan::sum_op{}, s));
    const auto got = out.download();
    std::size_t bad = 0;
    std::int64_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      run += in[i];
      bad += got[i] != 2 * run;
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("inclusive_scan reads through an iterator", "[gpu][generic]") {
  const fastscan::Shape3 s{3, 300001, 1};
  const auto n = static_cast<std::size_t>(s.outer * s.len);
  device_buffer<std::int64_t> out(n);
  out.poison();
  CUDA_REQUIRE(fastscan::inclusive_scan(thrust::counting_iterator<std::int64_t>(0), out.ptr, fastscan::sum_op{}, s));
  const auto got = out.download();
  std::size_t bad = 0;
  for (std::int64_t o = 0; o < s.outer; ++o) {
    const std::int64_t start = o * s.len;
    for (std::int64_t i = 0; i < s.len; ++i) {
      const std::int64_t last = start + i;
      const std::int64_t want = (last * (last + 1) - (start - 1) * start) / 2;
      bad += got[static_cast<std::size_t>(last)] != want;
    }
  }
  CHECK(bad == 0);
}

namespace {

template <int N, fastscan::block_scan_algorithm A>
__global__ void block_scan_kernel(const affine* in, affine* out, int x_extent, int y_extent) {
  extern __shared__ __align__(16) unsigned char smem[];
  fastscan::block_scan<affine, A> scan(smem, x_extent, y_extent);
  affine items[N];
  const int t = static_cast<int>(threadIdx.x);
  for (int i = 0; i < N; ++i) items[i] = in[t * N + i];
  scan.inclusive_scan(items, compose_affine{});
  for (int i = 0; i < N; ++i) out[t * N + i] = items[i];
}

}  // namespace

template <fastscan::block_scan_algorithm A>
void check_block_scan() {
  constexpr int N = 3;
  for (int x : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}) {
    for (int y : {1, 2, 4, 8, 32}) {
      if (x * y < 32 || x * y > 1024) continue;
      CAPTURE(x, y);
      const int threads = x * y;
      std::mt19937 rng(static_cast<unsigned>(x * 131 + y));
      std::vector<affine> in(static_cast<std::size_t>(threads) * N);
      for (auto& v : in) v = affine{static_cast<std::uint32_t>(rng() | 1u), static_cast<std::uint32_t>(rng())};
      device_buffer<affine> d_in(in.size()), d_out(in.size());
      d_in.upload(in);
      d_out.poison();
      block_scan_kernel<N, A><<<1, threads, fastscan::block_scan<affine, A>::storage_bytes(x, y)>>>(d_in.ptr, d_out.ptr, x, y);
      CUDA_REQUIRE(cudaGetLastError());
      const auto got = d_out.download();
      std::size_t bad = 0;
      for (int r = 0; r < y; ++r) {
        affine run{};
        for (int i = 0; i < x * N; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * x * N + i;
          run = i == 0 ? in[at] : compose_affine{}(run, in[at]);
          bad += !(got[at] == run);
        }
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("block_scan scans every runtime shape", "[gpu][collective]") {
  SECTION("warp scans") { check_block_scan<fastscan::block_scan_algorithm::warp_scans>(); }
  SECTION("Blelloch") { check_block_scan<fastscan::block_scan_algorithm::blelloch>(); }
}
