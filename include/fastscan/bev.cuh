//! \file bev.cuh
//! Pooling point features into voxels from unsorted keys (Lift-Splat-Shoot BEV pooling):
//! voxel_sum, bev_pool, bev_pool_backward, and a pooling plan that sorts the keys once for many
//! frames of features. The keys are sorted with CUB's radix sort (key and point index, stable,
//! only the bits the grid needs); the features are then read in sorted order through the
//! permutation and summed per run (device/run_sums.cuh): summed, never subtracted, in an order
//! fixed by the shape, so every result is bitwise the same run to run.
#pragma once

#include <fastscan/device/point_passes.cuh>
#include <fastscan/segmented.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <iterator>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {


//! Launches gather_rows_kernel over [S, C] destination rows.
template <class Src, class Dst, class Map>
cudaError_t gather_rows(const Src* src, Dst* dst, Map map, std::int64_t S, std::int64_t C, cudaStream_t stream) {
  constexpr int V = sizeof(Dst) >= 16 ? 1 : static_cast<int>(16 / sizeof(Dst));
  const std::int64_t groups = (C + V - 1) / V;
  return launch_kernel<gather_rows_kernel<V, Src, Dst, Map>>(elementwise_dims(S * groups), stream, src, dst, map, S,
                                                             C, divisor(groups));
}

//! The bits a radix sort of keys in [0, cells] needs.
inline int key_bits(std::int64_t cells) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) <= cells) ++bits;
  return bits;
}

//! Points in key order: the sorted keys and the permutation (perm[j]: the point sorted to j).
template <class Key>
struct sorted_points {
  Key* keys = nullptr;
  std::int64_t* perm = nullptr;
};

//! Sorts points by key (CUB's radix sort of (key, point index) pairs over `bits` bits, stable) in
//! pieces carved from `t`; keys outside [0, cells) sort last when cells > 0. Sorts only when
//! `launch` (the same carving sizes it).
template <class Key>
cudaError_t sort_points(temp_carver& t, bool launch, const Key* keys, std::int64_t S, std::int64_t cells, int bits,
                        sorted_points<Key>& out, cudaStream_t stream) {
  out = sorted_points<Key>{t.take<Key>(S), t.take<std::int64_t>(S)};
  Key* const keys_in = t.take<Key>(S);
  std::int64_t* const index = t.take<std::int64_t>(S);
  std::size_t bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, out.keys, index, out.perm, S, 0, bits, stream);
  void* const cub_temp = t.take<unsigned char>(bytes);
  if (err != cudaSuccess || !launch || S == 0) return err;
  err = launch_kernel<sort_input_kernel<Key>>(elementwise_dims(S), stream, keys, keys_in, index, S, cells);
  return err != cudaSuccess ? err
                            : cub::DeviceRadixSort::SortPairs(cub_temp, bytes, keys_in, out.keys, index, out.perm, S, 0, bits, stream);
}

}  // namespace detail

//! Points sorted by voxel once, for pooling many frames of features with a fixed geometry: the
//! sorted keys and the permutation, in device memory the plan borrows from its caller (kept alive
//! as long as the plan is used). Points outside [0, num_cells) sort last and are dropped.
template <class Key>
struct bev_pool_plan {
  const Key* sorted_keys = nullptr;
  const std::int64_t* perm = nullptr;
  std::int64_t S = 0;
  std::int64_t num_cells = 0;
};

namespace detail {
//! make_bev_pool_plan's arguments: sizes (cells below the key type's largest value, which marks
//! points outside), keys where there are points, aligned plan storage.
template <class Key>
bool bev_plan_args_valid(const void* d_plan, const Key* keys, std::int64_t S, std::int64_t num_cells) {
  const bool cells = num_cells > 0 && num_cells < static_cast<std::int64_t>(std::numeric_limits<Key>::max());
  return S >= 0 && cells && (S == 0 || (keys != nullptr && temp_aligned(d_plan)));
}
//! A plan's points: none, or the features, the plan's arrays, and features apart from the grid.
template <class T, class Key, class Acc>
bool plan_points_valid(const bev_pool_plan<Key>& plan, const T* feats, const Acc* grid, std::int64_t C) {
  return plan.S == 0 || (non_null(feats, plan.perm, plan.sorted_keys) &&
                         !overlap(span_of(feats, plan.S * C), span_of(grid, plan.num_cells * C)));
}
//! bev_pool's arguments with a plan: the channels, and past a size query the pointers (where there
//! are points), the features apart from the grid and aligned temp storage.
template <class T, class Key, class Acc>
bool bev_plan_pool_args_valid(const void* d_temp, const bev_pool_plan<Key>& plan, const T* feats, const Acc* grid,
                              std::int64_t C) {
  if (d_temp == nullptr) return C > 0;  // (a size query needs no pointers)
  return C > 0 && grid != nullptr && temp_aligned(d_temp) && plan_points_valid(plan, feats, grid, C);
}
}  // namespace detail

//! Sorts `keys` (S points) into `plan`, in `d_plan` (two-phase: a null d_plan asks for plan_bytes).
template <class Key>
cudaError_t make_bev_pool_plan(void* d_plan, std::size_t& plan_bytes, const Key* keys, std::int64_t S, std::int64_t num_cells,
                               bev_pool_plan<Key>& plan, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, std::int64_t>, "voxel keys are int32 or int64");
  if (!detail::bev_plan_args_valid(d_plan, keys, S, num_cells)) return cudaErrorInvalidValue;
  const int bits = detail::key_bits(num_cells);
  detail::temp_carver sizes{nullptr};
  detail::sorted_points<Key> sorted;
  cudaError_t err = detail::sort_points(sizes, false, keys, S, num_cells, bits, sorted, stream);
  if (err != cudaSuccess || !detail::temp_ready(d_plan, plan_bytes, sizes.used, err)) return err;
  detail::temp_carver t{static_cast<unsigned char*>(d_plan)};
  err = detail::sort_points(t, true, keys, S, num_cells, bits, sorted, stream);
  plan = bev_pool_plan<Key>{sorted.keys, sorted.perm, S, num_cells};
  return err;
}

//! Pools `feats` ([plan.S, C]) into the dense grid [plan.num_cells, C] (overwritten; cells with no
//! point are 0) with a plan's sorted points: no sort.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool(void* d_temp, std::size_t& temp_bytes, const bev_pool_plan<Key>& plan, const T* feats, Acc* grid,
                     std::int64_t C, cudaStream_t stream = nullptr) {
  if (!detail::bev_plan_pool_args_valid(d_temp, plan, feats, grid, C)) return cudaErrorInvalidValue;
  const auto pool = [&](unsigned char* base, bool launch, std::size_t& used) {
    detail::temp_carver t{base};
    const cudaError_t err = detail::sum_runs<T>(t, launch, detail::feature_rows<T>{feats, plan.perm, C}, plan.sorted_keys,
                                                detail::runs_to_cells<Key>{plan.sorted_keys, plan.num_cells}, grid, plan.S, C,
                                                stream);
    used = t.used;
    return err;
  };
  std::size_t bytes = 0;
  cudaError_t err = pool(nullptr, false, bytes);
  if (err != cudaSuccess || !detail::temp_ready(d_temp, temp_bytes, bytes, err)) return err;
  err = cudaMemsetAsync(grid, 0, static_cast<std::size_t>(plan.num_cells * C) * sizeof(Acc), stream);
  return err == cudaSuccess ? pool(static_cast<unsigned char*>(d_temp), true, bytes) : err;
}

namespace detail {
inline bool bev_sizes_valid(std::int64_t S, std::int64_t C, std::int64_t num_cells) { return S >= 0 && C > 0 && num_cells > 0; }
//! bev_pool's arguments: sizes, pointers where there are points, arrays apart, aligned temp storage.
template <class T, class Key, class Acc>
bool bev_pool_args_valid(const void* d_temp, const T* feats, const Key* keys, const Acc* grid, std::int64_t S, std::int64_t C,
                         std::int64_t num_cells) {
  const bool pointers = grid != nullptr && (S == 0 || non_null(feats, keys));
  return bev_sizes_valid(S, C, num_cells) && pointers && temp_aligned(d_temp) &&
         all_apart({span_of(feats, S * C), span_of(keys, S), span_of(grid, num_cells * C)});
}
}  // namespace detail

//! Pools from unsorted keys: grid[k, c] = sum of feats[i, c] over the points with keys[i] == k;
//! points with keys outside [0, num_cells) are dropped.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Acc* grid, std::int64_t S,
                     std::int64_t C, std::int64_t num_cells, cudaStream_t stream = nullptr) {
  if (!detail::bev_pool_args_valid(d_temp, feats, keys, grid, S, C, num_cells)) {
    return cudaErrorInvalidValue;
  }
  std::size_t plan_bytes = 0, pool_bytes = 0;
  bev_pool_plan<Key> plan{nullptr, nullptr, S, num_cells};
  cudaError_t err = make_bev_pool_plan<Key>(nullptr, plan_bytes, keys, S, num_cells, plan, stream);
  if (err == cudaSuccess) err = bev_pool<T, Key, Acc>(nullptr, pool_bytes, plan, feats, grid, C, stream);
  plan_bytes = detail::temp_piece(plan_bytes);
  if (err != cudaSuccess || !detail::temp_ready(d_temp, temp_bytes, plan_bytes + pool_bytes, err)) return err;
  err = make_bev_pool_plan<Key>(d_temp, plan_bytes, keys, S, num_cells, plan, stream);
  return err != cudaSuccess ? err : bev_pool<T, Key, Acc>(static_cast<unsigned char*>(d_temp) + plan_bytes, pool_bytes, plan, feats, grid, C, stream);
}

namespace detail {
//! bev_pool_backward's arguments: sizes, pointers where there are points, arrays apart.
template <class T, class Key, class Acc>
bool bev_backward_args_valid(const Acc* grad_grid, const Key* keys, const T* grad_feats, std::int64_t S, std::int64_t C,
                             std::int64_t num_cells) {
  return num_cells > 0 && segment_args_valid(S, C, non_null(grad_grid, keys, grad_feats)) &&
         all_apart({span_of(grad_grid, num_cells * C), span_of(keys, S), span_of(grad_feats, S * C)});
}
}  // namespace detail

//! grad_feats[i, c] = grad_grid[keys[i], c] (0 for points outside [0, num_cells)). Needs no temp
//! storage (temp_bytes is set to 1 on a query).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool_backward(void* d_temp, std::size_t& temp_bytes, const Acc* grad_grid, const Key* keys, T* grad_feats,
                              std::int64_t S, std::int64_t C, std::int64_t num_cells, cudaStream_t stream = nullptr) {
  const bool valid = detail::bev_backward_args_valid(grad_grid, keys, grad_feats, S, C, num_cells);
  cudaError_t err = valid ? cudaSuccess : cudaErrorInvalidValue;
  if (!valid || !detail::temp_ready(d_temp, temp_bytes, 0, err) || S == 0) return err;
  return detail::gather_rows(grad_grid, grad_feats, detail::points_from_cells<Key>{keys, num_cells}, S, C, stream);
}

namespace detail {

//! voxel_sum's passes over its temp storage: the sort (keys and point indices, CUB's temp), the
//! segments' numbers and sums in sorted order ([S, C] at most), then each point's sum scattered
//! back. `launch` false only sizes them (the same pieces are carved either way).
template <class T, class Key, class Acc>
cudaError_t voxel_sum_passes(unsigned char* base, bool launch, std::size_t& used, const T* feats, const Key* keys, Acc* out,
                             std::int64_t S, std::int64_t C, cudaStream_t stream) {
  temp_carver t{base};
  sorted_points<Key> sorted;
  cudaError_t err = sort_points(t, launch, keys, S, 0, static_cast<int>(sizeof(Key) * 8), sorted, stream);
  std::int64_t* const numbers = t.take<std::int64_t>(S);
  Acc* const sums = t.take<Acc>(static_cast<std::size_t>(S * C));
  if (err == cudaSuccess) err = number_segments(t, launch, sorted.keys, numbers, S, stream);
  if (err == cudaSuccess) {
    err = sum_runs<T>(t, launch, feature_rows<T>{feats, sorted.perm, C}, sorted.keys,
                      runs_to_numbers<Key>{sorted.keys, numbers, nullptr, S}, sums, S, C, stream);
  }
  if (err == cudaSuccess && launch) {
    err = gather_rows(sums, out, points_from_segments{numbers, sorted.perm}, S, C, stream);
  }
  used = t.used;
  return err;
}

//! voxel_sum's arguments: sizes, pointers where there are points, arrays apart, aligned temp storage.
template <class T, class Key, class Acc>
bool voxel_sum_args_valid(const void* d_temp, const T* feats, const Key* keys, const Acc* out, std::int64_t S, std::int64_t C) {
  return segment_args_valid(S, C, non_null(feats, keys, out)) &&
         all_apart({span_of(feats, S * C), span_of(keys, S), span_of(out, S * C)}) && (S == 0 || temp_aligned(d_temp));
}

}  // namespace detail

//! QuickCumsum's operator from unsorted keys: out[i, c] = sum of feats[j, c] over the points j
//! with keys[j] == keys[i], in the points' order. Temp storage holds the sort and the segment sums
//! ([S, C] accumulators at most).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t voxel_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Acc* out, std::int64_t S,
                      std::int64_t C, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, std::int64_t>, "voxel keys are int32 or int64");
  if (!detail::voxel_sum_args_valid(d_temp, feats, keys, out, S, C)) return cudaErrorInvalidValue;
  std::size_t bytes = 0;
  cudaError_t err = detail::voxel_sum_passes<T, Key, Acc>(nullptr, false, bytes, feats, keys, out, S, C, stream);
  if (err != cudaSuccess || !detail::temp_ready(d_temp, temp_bytes, bytes, err) || S == 0) return err;
  return detail::voxel_sum_passes<T, Key, Acc>(static_cast<unsigned char*>(d_temp), true, bytes, feats, keys, out, S, C, stream);
}

FASTSCAN_NAMESPACE_END
