//! \file voxel_key.hpp
//! Voxel keys from (batch, x, y, z): one integer per cell of a dense grid, ordered batch-major so
//! that sorted keys group each batch's cells. Plain C++ (host and device).
#pragma once

#include <fastscan/namespace.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define FASTSCAN_VOXEL_FN __host__ __device__ inline
#else
#define FASTSCAN_VOXEL_FN inline
#endif

namespace FASTSCAN_NAMESPACE {

//! The grid's extents (cells along each axis).
struct voxel_grid {
  std::int64_t batch = 1, x = 1, y = 1, z = 1;
};

//! Encodes a point's cell as key = ((b * X + x) * Y + y) * Z + z, in [0, cells); points outside the
//! grid get -1 (bev_pool drops them). `bits` is the width of the largest key: a radix sort of the
//! keys needs only those bits.
template <class Key>
struct voxel_key_encoder {
  static_assert(std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, std::int64_t>, "voxel keys are int32 or int64");
  voxel_grid grid{};
  std::int64_t cells = 0;
  int bits = 0;

  //! Fills `e` for `g`; false (and `e` untouched) when an extent is not positive or the largest
  //! key would not fit Key.
  static bool make(const voxel_grid& g, voxel_key_encoder& e) {
    // Keys 0 .. cells - 1 must fit Key; cells itself is an int64 (num_cells of bev_pool).
    constexpr auto limit = std::min(static_cast<std::uint64_t>(std::numeric_limits<Key>::max()) + 1,
                                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    std::uint64_t product = 1;
    for (const std::int64_t n : {g.batch, g.x, g.y, g.z}) {
      if (n <= 0 || static_cast<std::uint64_t>(n) > limit / product) {
        return false;
      }
      product *= static_cast<std::uint64_t>(n);  // <= limit
    }
    e.grid = g;
    e.cells = static_cast<std::int64_t>(product);
    e.bits = bits_for(e.cells);
    return true;
  }
  //! Bits that hold the keys below `cells`.
  static int bits_for(std::int64_t cells) {
    int bits = 0;
    while (bits < 63 && (std::int64_t{1} << bits) < cells) {
      ++bits;
    }
    return bits;
  }

  //! 0 <= v < n, for n > 0 (a negative v is huge unsigned).
  static FASTSCAN_VOXEL_FN bool within(std::int64_t v, std::int64_t n) {
    return static_cast<std::uint64_t>(v) < static_cast<std::uint64_t>(n);
  }

  FASTSCAN_VOXEL_FN Key operator()(std::int64_t b, std::int64_t x, std::int64_t y, std::int64_t z) const {
    const bool inside = within(b, grid.batch) && within(x, grid.x) && within(y, grid.y) && within(z, grid.z);
    return inside ? static_cast<Key>(((b * grid.x + x) * grid.y + y) * grid.z + z) : Key{-1};
  }
};

}  // namespace FASTSCAN_NAMESPACE
