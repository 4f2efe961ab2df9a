//! \file blelloch.cuh
//! Work-efficient (Blelloch) up-sweep / down-sweep over several independent arrays in shared
//! memory, behind block_scan's `blelloch` algorithm: a collective for users' kernels (no fastscan
//! kernel uses it). All threads of the block call each phase; each level ends in a barrier.
#pragma once

#include <fastscan/config.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Layout of `rows` arrays of `n` elements (n a power of two): element e of array r lives at
//! base[r * row_stride + e * elem_stride].
struct sweep_layout {
  int n;
  int rows;
  int row_stride;
  int elem_stride;
  FASTSCAN_DEVICE int at(int r, int e) const { return r * row_stride + e * elem_stride; }
};

//! After the up-sweep, element n-1 of each array holds the reduction of the whole array.
template <class T, class Op>
FASTSCAN_DEVICE void blelloch_upsweep(T* base, sweep_layout l, Op op) {
  const int tid = static_cast<int>(threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x);
  for (int d = 1; d < l.n; d *= 2) {
    const int nodes = l.n / (2 * d);
    for (int j = tid; j < l.rows * nodes; j += nthreads) {
      const int r = j / nodes;
      const int i = 2 * d * (j % nodes) + 2 * d - 1;
      base[l.at(r, i)] = op(base[l.at(r, i - d)], base[l.at(r, i)]);
    }
    __syncthreads();
  }
}

//! Turns the up-swept arrays into exclusive prefixes. Before the call, element n-1 of array r holds
//! the prefix that precedes the whole array when has_prefix(r) is true; when it is false the array
//! has no predecessor and its element 0 is left without a prefix (callers know this by position),
//! so no identity element is needed and any associative operator works.
template <class T, class Op, class HasPrefix>
FASTSCAN_DEVICE void blelloch_downsweep(T* base, sweep_layout l, Op op, HasPrefix has_prefix) {
  const int tid = static_cast<int>(threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x);
  for (int d = l.n / 2; d >= 1; d /= 2) {
    const int nodes = l.n / (2 * d);
    for (int j = tid; j < l.rows * nodes; j += nthreads) {
      const int r = j / nodes;
      const int i = 2 * d * (j % nodes) + 2 * d - 1;
      const T left = base[l.at(r, i - d)];
      if (i == 2 * d - 1 && !has_prefix(r)) {
        base[l.at(r, i)] = left;  // leftmost spine: nothing precedes the left half
      } else {
        base[l.at(r, i - d)] = base[l.at(r, i)];
        base[l.at(r, i)] = op(base[l.at(r, i)], left);
      }
    }
    __syncthreads();
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
