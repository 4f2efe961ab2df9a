//! \file divisor.cuh
//! Division by a divisor fixed for a launch (tiles per round, column chunks, row length): a
//! multiply and a shift when dividend and divisor are below 2^31, the 64-bit division otherwise.
//! A kernel divides tile indices by such values on every tile; the emulated 64-bit division took
//! about a tenth of the column kernel's instructions (ncu, H200).
#pragma once

#include <fastscan/config.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct divisor {
  std::int64_t d = 1;
  std::uint32_t mul = 0;  //!< ceil(2^shift / d); 0: d >= 2^31, always the 64-bit division
  int shift = 0;

  divisor() = default;
  //! d >= 1. With l = ceil(log2 d), shift = 31 + l: for n < 2^31, n * mul / 2^shift exceeds n / d
  //! by less than n / 2^shift < 2^-l <= 1 / d, so the floor is exact.
  FASTSCAN_HD explicit divisor(std::int64_t v) : d(v) {
    if (v >= 1 && v < (std::int64_t{1} << 31)) {
      int l = 0;
      while ((std::int64_t{1} << l) < v) {
        ++l;
      }
      shift = 31 + l;
      mul = static_cast<std::uint32_t>(((std::uint64_t{1} << shift) + static_cast<std::uint64_t>(v) - 1) /
                                       static_cast<std::uint64_t>(v));
    }
  }
  //! n / d for n >= 0.
  FASTSCAN_HD std::int64_t div(std::int64_t n) const {
    if (mul != 0 && static_cast<std::uint64_t>(n) < (std::uint64_t{1} << 31)) {
      return static_cast<std::int64_t>((static_cast<std::uint64_t>(n) * mul) >> shift);
    }
    return n / d;
  }
  FASTSCAN_HD std::int64_t mod(std::int64_t n) const { return n - div(n) * d; }
};

//! log2 of a power of two.
FASTSCAN_DEVICE int log2_pow2(int v) { return __ffs(v) - 1; }

}  // namespace detail
FASTSCAN_NAMESPACE_END
