//! \file point_passes.cuh
//! The element-wise kernels of BEV pooling (bev.cuh launches them): the sort's input, and gathers
//! of feature rows between points and cells.
#pragma once

#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/numeric.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/stream_order.cuh>

#include <cstdint>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Sort input: each point's key (keys outside [0, cells) become `cells` when cells > 0, so that
//! they sort last and are dropped) and its index.
FASTSCAN_KERNELS_BEGIN
template <class Key>
FASTSCAN_KERNEL void sort_input_kernel(const Key* keys, Key* keys_out, std::int64_t* index, std::int64_t n, std::int64_t cells) {
  enter_stream_order();
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const Key k = keys[i];
    keys_out[i] = cells > 0 && (k < 0 || static_cast<std::int64_t>(k) >= cells) ? static_cast<Key>(cells) : k;
    index[i] = i;
  }
}
FASTSCAN_KERNELS_END

//! dst[to(j), c] = src[from(j), c] for j < S (zeros where from(j) < 0): a thread per row and
//! 16-byte group of the destination's columns.
FASTSCAN_KERNELS_BEGIN
template <int V, class Src, class Dst, class Map>
FASTSCAN_KERNEL void gather_rows_kernel(const Src* src, Dst* dst, Map map, std::int64_t S, std::int64_t C, divisor by_groups) {
  enter_stream_order();
  const std::int64_t groups = (C + V - 1) / V;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < S * groups; t += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = by_groups.div(t);
    const std::int64_t col = (t - j * groups) * V;
    const int n = static_cast<int>(C - col < V ? C - col : V);
    const std::int64_t from = map.from(j);
    Src in[V] = {};
    if (from >= 0) load_plain_run<V>(src + from * C + col, in, n);
    Dst out[V];
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = convert_to<Dst>(in[v]);
    store_plain_run<V>(dst + map.to(j) * C + col, out, n);
  }
}
FASTSCAN_KERNELS_END

//! bev_pool_backward's rows: point j takes its cell's row (none outside the grid).
template <class Key>
struct points_from_cells {
  const Key* keys;
  std::int64_t cells;
  FASTSCAN_DEVICE std::int64_t from(std::int64_t j) const {
    const Key k = __ldg(keys + j);
    return k >= 0 && static_cast<std::int64_t>(k) < cells ? static_cast<std::int64_t>(k) : -1;
  }
  FASTSCAN_DEVICE std::int64_t to(std::int64_t j) const { return j; }
};

//! voxel_sum's rows: sorted point j (point perm[j]) takes its segment's sum.
struct points_from_segments {
  const std::int64_t* numbers;
  const std::int64_t* perm;
  FASTSCAN_DEVICE std::int64_t from(std::int64_t j) const { return __ldg(numbers + j) - 1; }
  FASTSCAN_DEVICE std::int64_t to(std::int64_t j) const { return __ldg(perm + j); }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
