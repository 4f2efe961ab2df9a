//! \file bev.cuh
//! Pooling point features into voxels from unsorted keys (Lift-Splat-Shoot BEV pooling):
//! voxel_sum, bev_pool, bev_pool_backward, and a pooling plan that sorts the keys once for many
//! frames of features. The keys are sorted with CUB's radix sort (key and point index, stable,
//! only the bits the grid needs); the features are then read in sorted order through the
//! permutation and summed per run by the segmented scan (segmented.cuh): summed, never subtracted,
//! in an order fixed by the input, so every result is bitwise the same run to run.
#pragma once

#include <fastscan/segmented.cuh>

#include <cub/device/device_radix_sort.cuh>

#include <iterator>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Rows of [S, C] features read in the order of a permutation of the rows.
template <class T>
struct permuted_rows {
  using value_type = T;
  using difference_type = std::int64_t;
  using pointer = const T*;
  using reference = T;
  using iterator_category = std::random_access_iterator_tag;
  const T* feats;
  const std::int64_t* perm;
  std::int64_t channels;
  divisor by_channels;
  std::int64_t pos = 0;
  FASTSCAN_DEVICE T operator[](std::int64_t n) const {
    const std::int64_t flat = pos + n;
    const std::int64_t row = by_channels.div(flat);
    return feats[__ldg(perm + row) * channels + (flat - row * channels)];
  }
  FASTSCAN_DEVICE T operator*() const { return (*this)[0]; }
  //! A run within one row is read from that row after one lookup, as vectors where aligned.
  template <int N>
  FASTSCAN_DEVICE void read_run(T (&dst)[N], int count) const {
    if (count <= 0) {
      return;  // (past the last row: no permutation entry to read)
    }
    const std::int64_t row = by_channels.div(pos);
    const std::int64_t col = pos - row * channels;
    if (col + count <= channels) {
      load_plain_run<N>(feats + __ldg(perm + row) * channels + col, dst, count);
      return;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (i < count) dst[i] = (*this)[i];
    }
  }
  FASTSCAN_DEVICE permuted_rows operator+(std::int64_t n) const {
    permuted_rows r = *this;
    r.pos += n;
    return r;
  }
};

//! Sort input: each point's key (keys outside [0, cells) become `cells` when cells > 0, so that
//! they sort last and are dropped) and its index.
template <class Key>
FASTSCAN_KERNEL void sort_input_kernel(const Key* keys, Key* keys_out, std::int64_t* index, std::int64_t n, std::int64_t cells) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const Key k = keys[i];
    keys_out[i] = cells > 0 && (k < 0 || static_cast<std::int64_t>(k) >= cells) ? static_cast<Key>(cells) : k;
    index[i] = i;
  }
}

//! out[perm[j], c] = sums[segment of j, c], the segment numbered by `numbers` (1, 2, ...), one
//! warp a row.
template <class Acc>
FASTSCAN_KERNEL void scatter_totals_kernel(const std::int64_t* numbers, const std::int64_t* perm, const Acc* sums, Acc* out,
                                           std::int64_t S, std::int64_t C) {
  const std::int64_t warps = std::int64_t{gridDim.x} * (blockDim.x / 32);
  const int lane = static_cast<int>(threadIdx.x) & 31;
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x / 32} + threadIdx.x / 32; j < S; j += warps) {
    const Acc* const from = sums + (__ldg(numbers + j) - 1) * C;
    Acc* const to = out + __ldg(perm + j) * C;
    for (std::int64_t c = lane; c < C; c += 32) to[c] = from[c];
  }
}

//! grad_feats[i, c] = grad_grid[keys[i], c], 0 for points outside the grid.
template <class T, class Key, class Acc>
FASTSCAN_KERNEL void gather_cells_kernel(const Acc* grad_grid, const Key* keys, T* grad_feats, std::int64_t S, std::int64_t C,
                                         std::int64_t cells) {
  const std::int64_t n = S * C;
  const divisor by_c(C);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t row = by_c.div(i);
    const Key k = keys[row];
    const bool inside = k >= 0 && static_cast<std::int64_t>(k) < cells;
    grad_feats[i] = convert_to<T>(inside ? grad_grid[static_cast<std::int64_t>(k) * C + (i - row * C)] : Acc{});
  }
}

//! Blocks for an element-wise kernel over n items (a few waves of the device).
inline unsigned elementwise_blocks(std::int64_t n, int threads) {
  const std::int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 132 * 32 ? (blocks > 0 ? blocks : 1) : 132 * 32);
}

//! The bits a radix sort of keys in [0, cells] needs.
inline int key_bits(std::int64_t cells) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) <= cells) ++bits;
  return bits;
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

//! Sorts `keys` (S points) into `plan`, in `d_plan` (two-phase: a null d_plan asks for plan_bytes).
template <class Key>
cudaError_t make_bev_pool_plan(void* d_plan, std::size_t& plan_bytes, const Key* keys, std::int64_t S, std::int64_t num_cells,
                               bev_pool_plan<Key>& plan, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, std::int64_t>, "voxel keys are int32 or int64");
  if (S < 0 || num_cells <= 0 || num_cells >= static_cast<std::int64_t>(std::numeric_limits<Key>::max()) ||
      (S > 0 && keys == nullptr)) {
    return cudaErrorInvalidValue;
  }
  detail::temp_carver t{static_cast<unsigned char*>(d_plan)};
  Key* const sorted = t.take<Key>(S);
  std::int64_t* const perm = t.take<std::int64_t>(S);
  Key* const keys_in = t.take<Key>(S);
  std::int64_t* const index = t.take<std::int64_t>(S);
  std::size_t sort_bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys_in, sorted, index, perm, S, 0,
                                                    detail::key_bits(num_cells), stream);
  if (err != cudaSuccess) return err;
  void* const sort_temp = t.take<unsigned char>(sort_bytes);
  if (d_plan == nullptr) {
    plan_bytes = t.used > 0 ? t.used : 1;
    return cudaSuccess;
  }
  if (plan_bytes < t.used) return cudaErrorInvalidValue;
  plan = bev_pool_plan<Key>{sorted, perm, S, num_cells};
  if (S == 0) return cudaSuccess;
  detail::sort_input_kernel<<<detail::elementwise_blocks(S, 256), 256, 0, stream>>>(keys, keys_in, index, S, num_cells);
  err = cudaPeekAtLastError();
  if (err != cudaSuccess) return err;
  return cub::DeviceRadixSort::SortPairs(sort_temp, sort_bytes, keys_in, sorted, index, perm, S, 0,
                                         detail::key_bits(num_cells), stream);
}

//! Pools `feats` ([plan.S, C]) into the dense grid [plan.num_cells, C] (overwritten; cells with no
//! point are 0) with a plan's sorted points: no sort.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool(void* d_temp, std::size_t& temp_bytes, const bev_pool_plan<Key>& plan, const T* feats, Acc* grid,
                     std::int64_t C, cudaStream_t stream = nullptr) {
  const bool pointers_valid =
      grid != nullptr && (plan.S == 0 || (feats != nullptr && plan.perm != nullptr && plan.sorted_keys != nullptr));
  if (C <= 0 || (d_temp != nullptr && !pointers_valid)) {  // (a size query needs no pointers)
    return cudaErrorInvalidValue;
  }
  if (d_temp != nullptr) {
    const cudaError_t err = cudaMemsetAsync(grid, 0, static_cast<std::size_t>(plan.num_cells * C) * sizeof(Acc), stream);
    if (err != cudaSuccess) return err;
  }
  const detail::divisor by_c(C);
  const detail::permuted_rows<T> in{feats, plan.perm, C, by_c};
  const detail::run_totals<Acc, Key, Acc> out{grid, nullptr, nullptr, nullptr, {plan.sorted_keys, plan.S}, C, by_c, plan.num_cells};
  return detail::keyed_scan<detail::caller_temp, detail::permuted_rows<T>, Key, Acc>({d_temp, temp_bytes}, in, plan.sorted_keys,
                                                                                    out, sum_op{}, plan.S, C, true, stream);
}

//! Pools from unsorted keys: grid[k, c] = sum of feats[i, c] over the points with keys[i] == k;
//! points with keys outside [0, num_cells) are dropped.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Acc* grid, std::int64_t S,
                     std::int64_t C, std::int64_t num_cells, cudaStream_t stream = nullptr) {
  if (S < 0 || C <= 0 || num_cells <= 0 || grid == nullptr || (S > 0 && (feats == nullptr || keys == nullptr))) {
    return cudaErrorInvalidValue;
  }
  std::size_t plan_bytes = 0, pool_bytes = 0;
  bev_pool_plan<Key> plan{nullptr, nullptr, S, num_cells};
  cudaError_t err = make_bev_pool_plan<Key>(nullptr, plan_bytes, keys, S, num_cells, plan, stream);
  if (err == cudaSuccess) err = bev_pool<T, Key, Acc>(nullptr, pool_bytes, plan, feats, grid, C, stream);
  if (err != cudaSuccess) return err;
  plan_bytes = (plan_bytes + 255) / 256 * 256;
  if (d_temp == nullptr) {
    temp_bytes = plan_bytes + pool_bytes;
    return cudaSuccess;
  }
  if (temp_bytes < plan_bytes + pool_bytes) return cudaErrorInvalidValue;
  err = make_bev_pool_plan<Key>(d_temp, plan_bytes, keys, S, num_cells, plan, stream);
  if (err != cudaSuccess) return err;
  return bev_pool<T, Key, Acc>(static_cast<unsigned char*>(d_temp) + plan_bytes, pool_bytes, plan, feats, grid, C, stream);
}

//! grad_feats[i, c] = grad_grid[keys[i], c] (0 for points outside [0, num_cells)). Needs no temp
//! storage (temp_bytes is set to 1 on a query).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t bev_pool_backward(void* d_temp, std::size_t& temp_bytes, const Acc* grad_grid, const Key* keys, T* grad_feats,
                              std::int64_t S, std::int64_t C, std::int64_t num_cells, cudaStream_t stream = nullptr) {
  if (S < 0 || C < 0 || num_cells <= 0 || (S > 0 && (C == 0 || grad_grid == nullptr || keys == nullptr || grad_feats == nullptr))) {
    return cudaErrorInvalidValue;
  }
  if (d_temp == nullptr) {
    temp_bytes = 1;
    return cudaSuccess;
  }
  if (S == 0) return cudaSuccess;
  detail::gather_cells_kernel<<<detail::elementwise_blocks(S * C, 256), 256, 0, stream>>>(grad_grid, keys, grad_feats, S, C,
                                                                                         num_cells);
  return cudaPeekAtLastError();
}

namespace detail {

//! voxel_sum's passes and its temp storage: the sort (keys and point indices, then CUB's temp),
//! the segments' numbers and sums in sorted order ([S, C] at most), and the scans' temp storage.
template <class T, class Key, class Acc>
struct voxel_sum_passes {
  using totals_t = run_totals<Acc, Key, Acc>;
  Key* sorted;
  std::int64_t* perm;
  Key* keys_in;
  std::int64_t* index;
  std::int64_t* numbers;
  Acc* sums;
  std::size_t sort_bytes = 0, bytes = 0;
  numbered_runs<permuted_rows<T>, Key, Acc, totals_t> runs;

  voxel_sum_passes(void* d_temp, std::int64_t S, std::int64_t C) : runs{S, C} {
    temp_carver t{static_cast<unsigned char*>(d_temp)};
    sorted = t.take<Key>(S);
    perm = t.take<std::int64_t>(S);
    keys_in = t.take<Key>(S);
    index = t.take<std::int64_t>(S);
    numbers = t.take<std::int64_t>(S);
    sums = t.take<Acc>(static_cast<std::size_t>(S * C));
    bytes = t.used;
  }
  divisor by_channels() const { return divisor(runs.C > 0 ? runs.C : 1); }
  totals_t totals() const { return {sums, nullptr, nullptr, numbers, {sorted, runs.S}, runs.C, by_channels()}; }
  permuted_rows<T> rows(const T* feats) const { return {feats, perm, runs.C, by_channels()}; }
  cudaError_t sort(void* temp, cudaStream_t stream) {
    return cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys_in, sorted, index, perm, runs.S, 0,
                                           static_cast<int>(sizeof(Key) * 8), stream);
  }
  //! Sizes the sort's and the scans' temp storage after the arrays (one region: they run in turn).
  cudaError_t size(const T* feats, cudaStream_t stream) {
    cudaError_t err = sort(nullptr, stream);
    if (err == cudaSuccess) err = runs.size(rows(feats), sorted, totals(), stream);
    bytes += std::max(sort_bytes, runs.scan_bytes());
    return err;
  }
  cudaError_t run(unsigned char* base, const T* feats, const Key* keys, Acc* out, cudaStream_t stream) {
    void* const temp = base + (bytes - std::max(sort_bytes, runs.scan_bytes()));
    sort_input_kernel<<<elementwise_blocks(runs.S, 256), 256, 0, stream>>>(keys, keys_in, index, runs.S, std::int64_t{0});
    cudaError_t err = cudaPeekAtLastError();
    if (err == cudaSuccess) err = sort(temp, stream);
    if (err == cudaSuccess) err = runs.launch(temp, rows(feats), sorted, numbers, totals(), stream);
    if (err != cudaSuccess) return err;
    scatter_totals_kernel<<<elementwise_blocks(runs.S * 32, 256), 256, 0, stream>>>(numbers, perm, sums, out, runs.S, runs.C);
    return cudaPeekAtLastError();
  }
};

}  // namespace detail

//! QuickCumsum's operator from unsorted keys: out[i, c] = sum of feats[j, c] over the points j
//! with keys[j] == keys[i], in the points' order. Temp storage holds the sort and the segment sums
//! ([S, C] accumulators at most).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t voxel_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Acc* out, std::int64_t S,
                      std::int64_t C, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, std::int64_t>, "voxel keys are int32 or int64");
  if (S < 0 || C < 0 || (S > 0 && (C == 0 || feats == nullptr || keys == nullptr || out == nullptr))) {
    return cudaErrorInvalidValue;
  }
  detail::voxel_sum_passes<T, Key, Acc> passes(d_temp, S, C);
  const cudaError_t err = passes.size(feats, stream);
  if (err != cudaSuccess) return err;
  if (d_temp == nullptr) {
    temp_bytes = passes.bytes > 0 ? passes.bytes : 1;
    return cudaSuccess;
  }
  if (temp_bytes < passes.bytes) return cudaErrorInvalidValue;
  return S == 0 ? cudaSuccess : passes.run(static_cast<unsigned char*>(d_temp), feats, keys, out, stream);
}

FASTSCAN_NAMESPACE_END
