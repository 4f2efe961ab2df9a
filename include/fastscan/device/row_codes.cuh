//! \file row_codes.cuh
//! Side outputs kept as 4-bit row codes: for a problem whose side output is the row at which the
//! running accumulator was taken (`Problem::side_is_row_index`, the indices of cummax / cummin),
//! every side output of a thread is one of its own rows or the one its prefix came in with, so a
//! thread keeps 4 bits per output instead of an index, and writes them as whole runs.
#pragma once

#include <fastscan/detail/layout.hpp>
#include <fastscan/problem/contract.cuh>
#include <fastscan/warp/warp_exchange.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Whether a problem's side outputs are row indices that row codes can hold.
template <class Problem, class = void>
struct side_is_row_index : std::false_type {};
template <class Problem>
struct side_is_row_index<Problem, std::enable_if_t<Problem::side_is_row_index>> : std::true_type {};

//! The codes of a thread's ITEMS x VEC side outputs, written through its warp's exchange slice
//! (32 unit rows of ITEMS + 1 units) as many lanes at a time as their rows fit. `value` is false
//! where the problem or the shape does not allow them.
template <class Problem, int ITEMS, int VEC, class = void>
struct row_codes : std::false_type {};
template <class Problem, int ITEMS, int VEC>
struct row_codes<Problem, ITEMS, VEC,
                 std::enable_if_t<side_is_row_index<Problem>::value && rows_in_place<Problem> &&
                                  VEC * sizeof(typename Problem::input_t) == 16 &&
                                  std::is_pointer_v<decltype(Problem::side_out)> && ITEMS < 16 && VEC <= 4 &&
                                  (ITEMS * VEC * sizeof(typename Problem::side_t)) % 16 == 0>> : std::true_type {
  using side_t = typename Problem::side_t;
  static constexpr int count = ITEMS * VEC;
  static constexpr int words = (count + 7) / 8;
  static constexpr unsigned came_in = 15;  //!< the code of the position the thread came in with
  static constexpr int units = static_cast<int>(count * sizeof(side_t) / 16);  //!< per lane
  //! Lanes whose rows fit the exchange slice at once (a power of two).
  static constexpr int lanes_at_once = [] {
    int g = 32;
    while (g > 1 && static_cast<std::size_t>(g) * unit_row_pitch(units) * 16 > unit_slice_bytes(ITEMS)) {
      g /= 2;
    }
    return g;
  }();
  static_assert(lanes_at_once * units % 32 == 0, "a pass of rows fills whole warp-wide stores");

  unsigned code[words];
  std::int64_t row0;
  std::int64_t entry[VEC];  //!< the position each column came in with

  template <class Acc>
  FASTSCAN_DEVICE void begin(const Problem& prob, const Acc (&running)[VEC], const bool (&has)[VEC],
                             std::int64_t first_row) {
    row0 = first_row;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      entry[v] = has[v] ? static_cast<std::int64_t>(prob.side(running[v])) : first_row;
    }
#pragma unroll
    for (int w = 0; w < words; ++w) {
      code[w] = 0;
    }
  }
  FASTSCAN_DEVICE void keep(int i, int v, side_t index) {
    const std::int64_t d = static_cast<std::int64_t>(index) - row0;
    const unsigned c = d >= 0 ? static_cast<unsigned>(d) : came_in;
    const int n = i * VEC + v;
    code[n / 8] |= c << (4 * (n % 8));
  }
  FASTSCAN_DEVICE side_t index(int n) const {
    const unsigned c = (code[n / 8] >> (4 * (n % 8))) & 15u;
    return static_cast<side_t>(c == came_in ? entry[n % VEC] : row0 + c);
  }
  static FASTSCAN_DEVICE bool aligned(const Problem& prob, std::int64_t warp_base) {
    return reinterpret_cast<std::uintptr_t>(prob.out + warp_base) % 16 == 0 &&
           reinterpret_cast<std::uintptr_t>(prob.side_out + warp_base) % 16 == 0;
  }
  //! Writes the warp's side outputs to `warp_side` (16-byte aligned) through `slice`, which the
  //! caller has finished with.
  FASTSCAN_DEVICE void leave(side_t* warp_side, uint4* slice) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
    for (int first = 0; first < 32; first += lanes_at_once) {
      if (lane >= first && lane < first + lanes_at_once) {
        side_t* const row = unit_row<side_t, units>(slice, lane - first);
#pragma unroll
        for (int n = 0; n < count; ++n) {
          row[n] = index(n);
        }
      }
      warp_unstage_rows<units, lanes_at_once>(warp_side + static_cast<std::int64_t>(first) * count, slice);
    }
  }
  //! The most parts (a power of two, at most `total`) whose words fit `slice_bytes`.
  template <class W>
  static FASTSCAN_DEVICE int parts_at_once(int part, int total, std::size_t slice_bytes) {
    int group = total;
    while (group > 1 && word_parts::bytes(part, group, sizeof(W)) > slice_bytes) {
      group /= 2;
    }
    return group;
  }
  //! The thread's indices into its part: rows `inner` apart, its first ncols columns.
  FASTSCAN_DEVICE void put_part(side_t* row, int inner, int ncols) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        if (v < ncols) {
          row[i * inner + v] = index(i * VEC + v);
        }
      }
    }
  }

  //! The same for a warp of odd rows (word parts of ITEMS * inner, one per thread row), through
  //! `slice` (of `slice_bytes`) in passes of as many parts as fit.
  FASTSCAN_DEVICE void leave_parts(side_t* warp_side, uint4* slice, std::size_t slice_bytes, int inner, int lanes_x_log2,
                                   int tx, int ncols) const {
    using W = std::conditional_t<sizeof(side_t) == 8, unsigned long long, unsigned>;
    static_assert(sizeof(side_t) == sizeof(W), "indices of 4 or 8 bytes");
    const int parts_total = 32 >> lanes_x_log2;
    const int part = ITEMS * inner;
    const int group = parts_at_once<W>(part, parts_total, slice_bytes);
    const word_parts parts(part, group);
    const int yl = (static_cast<int>(threadIdx.x) & 31) >> lanes_x_log2;
    auto* const words_out = reinterpret_cast<side_t*>(slice);
    for (int first = 0; first < parts_total; first += group) {
      __syncwarp();
      if (yl >= first && yl < first + group) {
        put_part(words_out + (yl - first) * parts.pitch + tx * VEC, inner, ncols);
      }
      warp_unstage_words(reinterpret_cast<W*>(warp_side + static_cast<std::int64_t>(first) * part),
                         reinterpret_cast<const W*>(words_out), parts);
    }
  }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
