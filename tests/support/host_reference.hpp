// Host-side helpers shared by the host tests and the GPU tests: a byte-backed host array, random
// data full of ties and NaNs, sequential references with the framework semantics, names, and the
// edge-shape list. Plain C++ (the host compiler builds it): nothing here touches a device.
#pragma once

#include <fastscan/detail/numeric.cuh>
#include <fastscan/shape.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace fstest {

//! A host array that, unlike std::vector<bool>, stores bool as bytes with a data() pointer.
template <class T>
class host_array {
 public:
  host_array() = default;
  explicit host_array(std::size_t n, const T& v = T{}) : data_(n, wrap{v}) {}
  std::size_t size() const { return data_.size(); }
  void resize(std::size_t n) { data_.resize(n); }
  T* data() { return reinterpret_cast<T*>(data_.data()); }
  const T* data() const { return reinterpret_cast<const T*>(data_.data()); }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  const T& back() const { return data()[size() - 1]; }
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }

 private:
  struct wrap {
    T v;
  };
  std::vector<wrap> data_;
};

template <class T>
std::string type_name() {
  return fastscan::detail::dtype_name<T>();
}

inline std::string shape_name(fastscan::Shape3 s) {
  std::ostringstream os;
  os << "[" << s.outer << ", " << s.len << ", " << s.inner << "]";
  return os.str();
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) return __double2half(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(v);
  else return static_cast<T>(v);
}

template <class T>
double to_double(const T& v) {
  return static_cast<double>(fastscan::detail::to_arith(v));
}

template <class T>
constexpr bool is_floating() {
  return std::is_floating_point_v<T> || fastscan::detail::is_half_v<T>;
}

//! Random values from a small set (many ties), with NaNs, infinities and signed zeros for floats
//! and the type's extremes for integers.
template <class T>
host_array<T> random_values(std::size_t n, std::uint64_t seed, int distinct = 8) {
  std::mt19937_64 rng(seed);
  host_array<T> v(n);
  std::uniform_int_distribution<int> pick(0, 99);
  std::uniform_int_distribution<int> small(-distinct, distinct);
  for (auto& x : v) {
    const int r = pick(rng);
    if constexpr (std::is_same_v<T, bool>) {
      x = (r & 1) != 0;
    } else if constexpr (is_floating<T>()) {
      const double specials[] = {std::nan(""), INFINITY, -INFINITY, -0.0, 0.0};
      x = r < 3 ? from_double<T>(specials[r % 5]) : r < 5 ? from_double<T>(specials[2 + r % 3]) : from_double<T>(small(rng) * 0.5);
    } else {
      if (r == 0) x = std::numeric_limits<T>::max();
      else if (r == 1) x = std::numeric_limits<T>::lowest();
      else x = static_cast<T>(std::is_signed_v<T> ? small(rng) : small(rng) + distinct);
    }
  }
  return v;
}

//! Sequential cummax/cummin with the framework rule, written out case by case.
template <class T, class Index>
void reference_extreme(const host_array<T>& in, host_array<T>& values, std::vector<Index>& indices,
                       fastscan::Shape3 s, bool take_min, bool tie_first) {
  values.resize(in.size());
  indices.resize(in.size());
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t c = 0; c < s.inner; ++c) {
      T best{};
      std::int64_t best_i = 0;
      for (std::int64_t i = 0; i < s.len; ++i) {
        const std::size_t at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
        const T x = in[at];
        bool take;
        if (i == 0) {
          take = true;
        } else if (fastscan::detail::is_nan(x)) {
          take = !fastscan::detail::is_nan(best) || !tie_first;
        } else if (fastscan::detail::is_nan(best)) {
          take = false;
        } else if (to_double(x) == to_double(best)) {
          take = !tie_first;
        } else {
          take = take_min ? to_double(x) < to_double(best) : to_double(x) > to_double(best);
        }
        if (take) {
          best = x;
          best_i = i;
        }
        values[at] = best;
        indices[at] = static_cast<Index>(best_i);
      }
    }
  }
}

//! Sequential sums in double (floats) or in the output type with wrap-around (integers), plus the
//! running sum of magnitudes that bounds the rounding error.
template <class T, class Out>
void reference_sum(const host_array<T>& in, std::vector<double>& sums, std::vector<double>& magnitudes,
                   std::vector<Out>& exact, fastscan::Shape3 s, bool exclusive) {
  sums.assign(in.size(), 0.0);
  magnitudes.assign(in.size(), 0.0);
  exact.assign(in.size(), Out{});
  using U = std::conditional_t<std::is_integral_v<Out>, std::make_unsigned_t<std::conditional_t<std::is_integral_v<Out>, Out, int>>, Out>;
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t c = 0; c < s.inner; ++c) {
      double sum = 0, mag = 0;
      U wrap = 0;
      for (std::int64_t i = 0; i < s.len; ++i) {
        const std::size_t at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
        const double x = to_double(in[at]);
        if (exclusive) {
          sums[at] = sum;
          magnitudes[at] = mag;
          if constexpr (std::is_integral_v<Out>) exact[at] = static_cast<Out>(wrap);
        }
        sum = i == 0 ? x : sum + x;  // a row starts from its first element (keeps -0.0)
        mag += std::fabs(x);
        if constexpr (std::is_integral_v<Out>) wrap = static_cast<U>(wrap + static_cast<U>(static_cast<Out>(fastscan::detail::to_arith(in[at]))));
        if (!exclusive) {
          sums[at] = sum;
          magnitudes[at] = mag;
          if constexpr (std::is_integral_v<Out>) exact[at] = static_cast<Out>(wrap);
        }
      }
    }
  }
}

//! Shapes that hit the edges of a plan: empty, single elements, primes, powers of two +- 1, tile
//! edges +- 1 for the row and column kernels, [1, N], [N, 1] along axis 0, and 3-D middle axes.
inline std::vector<fastscan::Shape3> edge_shapes(std::int64_t row_tile, std::int64_t column_tile_rows,
                                                 std::int64_t small_row_tile) {
  std::vector<fastscan::Shape3> shapes = {
      {0, 5, 1},    {3, 0, 1},    {2, 4, 0},    {1, 1, 1},     {1, 2, 1},     {1, 31, 1},   {1, 32, 1},
      {1, 33, 1},   {7, 13, 1},   {1, 997, 1},  {1, 1023, 1},  {1, 1024, 1},  {1, 1025, 1}, {5, 4099, 1},
      {1000, 3, 1}, {4096, 1, 1}, {333, 65, 1}, {1, 65537, 1}, {1, 999983, 1}, {3, 7, 2},   {1, 4099, 2},
      {1, 3001, 3}, {2, 517, 64}, {4, 33, 129}, {1, 65536, 1},  {31, 17, 33},  {1, 8193, 5}, {2, 2, 1031},
      // Short scan axes across many columns (column plans of at most policy::column_short_items rows).
      {2, 1, 257},  {1, 3, 4099}, {5, 4, 33},   {1, 4, 65537},
      // Rows of one 16-byte vector for 4-byte types (one thread across the row, the warp's rows one
      // contiguous run), and of a few.
      {1, 4099, 4}, {3, 2049, 4}, {1, 3001, 16}, {2, 3001, 8},
      // Rows narrower than their tile (whole rows of the plane staged word by word, thread rows
      // `inner` elements apart), long enough for full-size plans; outer > 1 with odd lengths puts
      // warps' runs at unaligned addresses.
      {1, 200003, 3}, {2, 100003, 6}, {1, 70001, 12}, {3, 40001, 13}, {1, 131071, 2}, {1, 30011, 24},
  };
  for (std::int64_t t : {row_tile, 2 * row_tile, 33 * row_tile, small_row_tile, 2 * small_row_tile}) {
    for (std::int64_t d : {-1, 0, 1}) {
      shapes.push_back({1, t + d, 1});
      shapes.push_back({3, t + d, 1});
    }
  }
  for (std::int64_t t : {column_tile_rows, 2 * column_tile_rows, 40 * column_tile_rows}) {
    for (std::int64_t d : {-1, 0, 1}) {
      shapes.push_back({1, t + d, 7});
      shapes.push_back({2, t + d, 64});
      shapes.push_back({1, t + d, 4});
    }
  }
  return shapes;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace fstest
