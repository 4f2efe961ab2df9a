//! \file variants.hpp
//! The kernels a problem type compiles, as the solver sees them: one list per problem type
//! (dispatch.cuh's problem_kernels builds it once from the tuning table), numbered in the order the
//! launcher instantiates them. The solver picks an entry and records its index in the plan
//! (plan::variant); the launcher switches on that index; the host tests read the same list.
//! Host-only.
#pragma once

#include <fastscan/namespace.hpp>

#include <cstddef>

namespace FASTSCAN_NAMESPACE {
namespace detail {

enum class strategy {
  empty,    //!< nothing to do
  rows,     //!< inner == 1, inputs up to 8 bytes: flat segmented tiles over outer * len
  columns,  //!< inner > 1: tiles of rows x contiguous columns, scanned down the columns
  pipelined,  //!< one long row (outer == inner == 1) of 16-byte aligned arrays: persistent blocks,
              //!< a ring of bulk-copied stages (device/pipelined_rows.cuh)
};

//! One compiled kernel.
struct kernel_variant {
  strategy kind = strategy::empty;
  int items = 0;    //!< items (rows) per thread it is compiled for; a column plan may run fewer
  int vec = 1;      //!< columns per thread (column kernels)
  int threads = 0;  //!< its launch bound: the largest block it runs
  //! Shared memory a plan gives each warp for the exchange: at least the kernel's own slice (the
  //! short column and latency row kernels are given their main kernel's, as they were measured).
  std::size_t slice_bytes = 0;
  bool odd = false;  //!< columns: rows of the plane narrower than the tile, staged as word parts
  int stages = 0;    //!< pipelined: stages in the ring (vec: warps per squad; slice_bytes: all of
                     //!< its shared memory)
};

//! A problem type's kernels: row kernels by items, then column kernels by rows, odd twins, then the
//! pipelined row kernel.
struct kernel_variants {
  static constexpr int capacity = 8;
  kernel_variant at[capacity] = {};
  int count = 0;

  constexpr kernel_variants& add(const kernel_variant& v) {
    at[count++] = v;
    return *this;
  }
  //! The index of the first kernel of `kind` with `items` (odd twins only when `odd`), or -1.
  constexpr int find(strategy kind, int items, bool odd = false) const {
    for (int i = 0; i < count; ++i) {
      if (at[i].kind == kind && at[i].items == items && at[i].odd == odd) {
        return i;
      }
    }
    return -1;
  }
  //! Whether kernel i is of `kind` and not an odd twin.
  constexpr bool plain(int i, strategy kind) const { return at[i].kind == kind && !at[i].odd; }
  //! The most (most = true) or fewest items of the kernels of `kind` that are not odd twins (0: none).
  constexpr int items_of(strategy kind, bool most) const {
    int best = 0;
    for (int i = 0; i < count; ++i) {
      if (plain(i, kind) && (best == 0 || (most ? at[i].items > best : at[i].items < best))) {
        best = at[i].items;
      }
    }
    return best;
  }
  //! The column kernel with the fewest rows that hold `items` rows per thread (not an odd twin), or -1.
  constexpr int fewest_columns(int items) const {
    int best = -1;
    for (int i = 0; i < count; ++i) {
      if (plain(i, strategy::columns) && at[i].items >= items && (best < 0 || at[i].items < at[best].items)) {
        best = i;
      }
    }
    return best;
  }
  //! The column kernel that runs a plan of `items` rows per thread: the fewest rows that hold them,
  //! or its odd twin when the plane's rows are narrower than the tile (`narrow`) and the plan takes
  //! all of its rows. -1 when no kernel holds them.
  constexpr int columns(int items, bool narrow) const {
    const int best = fewest_columns(items);
    const int twin = narrow && best >= 0 && at[best].items == items ? find(strategy::columns, items, true) : -1;
    return twin >= 0 ? twin : best;
  }
};

}  // namespace detail
}  // namespace FASTSCAN_NAMESPACE
