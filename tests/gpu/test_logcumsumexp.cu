// logcumsumexp against a float64 reference: rows, columns and middle axes on the plans' edge shapes,
// with -inf, +inf and NaN rows, in float, double and float16 (scaled sums in float, rounded once).
#include "common.cuh"

#include <fastscan/logcumsumexp.cuh>

#include <cmath>

using namespace fstest;

namespace {

//! log(exp(a) + exp(b)) in double with torch's infinities and NaN.
double log_add(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  const double hi = std::max(a, b), lo = std::min(a, b);
  if (hi == -INFINITY || hi == INFINITY) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

template <class T>
std::vector<double> reference(const host_array<T>& in, fastscan::Shape3 s) {
  std::vector<double> out(in.size());
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t c = 0; c < s.inner; ++c) {
      double acc = -INFINITY;
      for (std::int64_t i = 0; i < s.len; ++i) {
        const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
        acc = i == 0 ? to_double(in[at]) : log_add(acc, to_double(in[at]));
        out[at] = acc;
      }
    }
  }
  return out;
}

//! Values in [-20, 20]; with `specials`, one in 2000 is -inf, +inf or NaN.
template <class T>
host_array<T> inputs(std::size_t n, std::uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-20, 20);
  std::uniform_int_distribution<int> pick(0, 1999);
  host_array<T> v(n);
  for (auto& x : v) {
    const int r = specials ? pick(rng) : 3;
    x = from_double<T>(r == 0 ? -INFINITY : r == 1 ? INFINITY : r == 2 ? std::nan("") : value(rng));
  }
  return v;
}

template <class T>
void check_logcumsumexp(fastscan::Shape3 s, std::uint64_t seed, bool specials, bool in_place) {
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const host_array<T> in = inputs<T>(n, seed, specials);
  const std::vector<double> want = reference(in, s);
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in);
  d_out.poison();
  T* const out = in_place ? d_in.ptr : d_out.ptr;
  CUDA_REQUIRE(fastscan::logcumsumexp(d_in.ptr, out, s));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const host_array<T> got = in_place ? d_in.download() : d_out.download();
  // Rounding: the output's own (float16) or a few units of the sums' along the tile chain.
  const double tol = std::is_same_v<T, __half> ? 2e-3 : std::is_same_v<T, float> ? 1e-4 : 1e-11;
  std::int64_t bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const double g = to_double(got[i]), w = want[i];
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= tol * (1 + std::fabs(w));
    if (!ok && bad++ == 0) first_bad = static_cast<std::int64_t>(i);
  }
  if (bad != 0) {
    CAPTURE(first_bad, to_double(got[static_cast<std::size_t>(first_bad)]), want[static_cast<std::size_t>(first_bad)]);
    CHECK(bad == 0);
  }
}

template <class T>
void check_logcumsumexp_shapes() {
  using dispatch = fstest::dispatch_of<fastscan::detail::logsumexp_problem<T>>;
  const auto tiles = tile_sizes<dispatch>();
  std::uint64_t seed = 300;
  for (const auto& s : edge_shapes(tiles.rows, tiles.column_rows, tiles.small_rows)) {
    ++seed;
    CAPTURE(type_name<T>(), shape_name(s));
    check_logcumsumexp<T>(s, seed, seed % 4 == 0, seed % 5 == 0);
  }
}

}  // namespace

TEMPLATE_TEST_CASE("logcumsumexp matches a float64 reference on edge shapes", "[gpu][logcumsumexp]", float, double,
                   __half) {
  check_logcumsumexp_shapes<TestType>();
}

TEST_CASE("logcumsumexp is bitwise the same run to run", "[gpu][logcumsumexp][determinism]") {
  const fastscan::Shape3 s{3, 300007, 1};
  const auto n = static_cast<std::size_t>(s.outer * s.len);
  const host_array<float> in = inputs<float>(n, 9, false);
  device_buffer<float> d_in(n), d_out(n);
  d_in.upload(in);
  CUDA_REQUIRE(fastscan::logcumsumexp(d_in.ptr, d_out.ptr, s));
  const auto first = d_out.download();
  for (int run = 0; run < 10; ++run) {
    d_out.poison();
    CUDA_REQUIRE(fastscan::logcumsumexp(d_in.ptr, d_out.ptr, s));
    CHECK(std::memcmp(d_out.download().data(), first.data(), n * sizeof(float)) == 0);
  }
}
