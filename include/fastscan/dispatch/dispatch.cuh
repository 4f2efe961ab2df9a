//! \file dispatch.cuh
//! Validation, planning, temp-storage sizing and launch, shared by every entry point: the layer
//! between the entry points (above) and the solver (plan/) and kernels (device/) below.
#pragma once

#include <fastscan/device/column_scan.cuh>
#include <fastscan/device/pipelined_rows.cuh>
#include <fastscan/device/row_scan.cuh>
#include <fastscan/dispatch/launch.cuh>
#include <fastscan/detail/overlap.hpp>
#include <fastscan/plan/kernel_policy.hpp>
#include <fastscan/plan/explain.hpp>
#include <fastscan/plan/plan.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <utility>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The attributes of `device` the solver needs.
inline cudaError_t read_device_limits(int device, device_limits& dev) {
  int sms = 0, grid_x = 0, smem = 0, optin = 0;
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&grid_x, cudaDevAttrMaxGridDimX, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  dev.device = device;
  dev.sm_count = sms;
  dev.max_grid_x = grid_x;
  dev.smem_per_block = static_cast<std::size_t>(smem);
  dev.smem_optin_per_block = static_cast<std::size_t>(optin);
  return err;
}

//! Reads what the solver needs of the current device. The attributes are immutable, so each host
//! thread keeps those of the device it asked about last (a plan costs one cudaGetDevice then).
inline cudaError_t cached_device_limits(int device, device_limits& dev) {
  thread_local int cached_device = -1;
  thread_local device_limits cached;
  if (device != cached_device) {
    device_limits read;
    const cudaError_t err = read_device_limits(device, read);
    if (err != cudaSuccess) return err;
    cached = read;
    cached_device = device;
  }
  dev = cached;
  return cudaSuccess;
}
inline cudaError_t query_device(device_limits& dev) {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  return err != cudaSuccess ? err : cached_device_limits(device, dev);
}

//! Blocks of policy::elementwise_threads for an element-wise kernel over n items: a thread per
//! item, at most policy::elementwise_blocks_per_sm blocks per SM of the current device (the threads
//! loop past that).
inline unsigned elementwise_grid(std::int64_t n) {
  device_limits dev;
  (void)query_device(dev);  // (on an error, the defaults: the error shows at the launch)
  const std::int64_t cap = std::int64_t{policy::elementwise_blocks_per_sm} * dev.sm_count;
  const std::int64_t blocks = (n + policy::elementwise_threads - 1) / policy::elementwise_threads;
  return static_cast<unsigned>(blocks < cap ? (blocks > 0 ? blocks : 1) : cap);
}

//! A shape with no elements (negative extents are reported by the solver).
inline bool is_empty(Shape3 s) { return std::min({s.outer, s.len, s.inner}) <= 0; }

//! A fresh tile-state tag for each call (62 bits, never 0): a per-process seed from the system's
//! random source, the clock and an address, plus a call counter. Tags of one process never repeat,
//! and whatever else the temp storage may hold (another process's state, unrelated data) matches a
//! tag with probability 2^-62 per word. tile_tags() holds the next one (tests rewind it).
inline std::atomic<unsigned long long>& tile_tags() {
  static std::atomic<unsigned long long> counter{[] {
    static const int anchor = 0;
    unsigned long long z = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                           (static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(&anchor)) << 20);
    try {
      std::random_device source;
      z ^= (static_cast<unsigned long long>(source()) << 32) ^ source();
    } catch (...) {  // no random source: the clock and the address alone
    }
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;  // splitmix64 finalizer
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }()};
  return counter;
}
//! Never the zeroed mode's 0, nor all ones (memory filled with 0xff), in the tile words' 62 bits or
//! the ticket word's low bits.
constexpr unsigned long long tile_tag_bits = (1ull << 62) - 1;
constexpr bool usable_tag(unsigned long long tag) {
  const unsigned long long ticket = tag & ticket_tag_mask;
  return tag != 0 && tag != tile_tag_bits && ticket != 0 && ticket != ticket_tag_mask;
}
inline unsigned long long next_tile_tag() {
  for (;;) {
    const unsigned long long tag = tile_tags().fetch_add(1, std::memory_order_relaxed) & tile_tag_bits;
    if (usable_tag(tag)) {
      return tag;
    }
  }
}

//! Whether a problem's side output, if any, can leave the pipelined kernel by bulk copies beside
//! its values: an array of the values' element size.
template <class Problem>
constexpr bool pipelined_sides() {
  if constexpr (has_side_output<Problem>) {
    return std::is_pointer_v<decltype(Problem::side_out)> && sizeof(typename Problem::side_t) == sizeof(typename Problem::input_t);
  } else {
    return true;
  }
}

//! The kernels one problem type compiles, and what the solver must know of them.
template <class Problem>
struct problem_kernels {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  static constexpr bool exact = problem_is_exact<Problem>;
  using tune = policy::tuning<input_t, acc_t, typename Problem::op_t>;
  static constexpr bool row_kernel = tune::row_kernel;
  static constexpr int row_items = tune::row_items(rows_in_place<Problem>);
  static constexpr int row_latency_items = tune::row_latency_items();
  static constexpr int row_short_items = tune::row_short_items();
  static constexpr int column_vec = tune::column_vec();
  //! Rows per thread of the column kernels: the plain one, the wide one (sums formed in place),
  //! and the short one (plans of at most policy::column_short_items rows).
  static constexpr int column_wide_items =
      tune::column_wide_items(outputs_in_place<Problem>, exact, has_complete_folds<Problem>::value);
  static constexpr int column_items = std::min(tune::column_items(), column_wide_items);
  static constexpr int column_small_items = std::min(policy::column_short_items, column_items);
  static_assert(tune::column_latency_items() >= column_items || tune::column_latency_items() <= column_small_items,
                "latency column plans take the rows of a compiled column kernel");
  //! Rows narrower than the tile take the wide kernel's Odd variant (inputs it can stage).
  static constexpr bool odd_kernel = column_unit_rows<input_t, column_wide_items, column_vec> &&
                                     std::is_pointer_v<decltype(Problem::in)>;

  //! One long row through the pipelined kernel: its tuning gives it a shape, the inputs and the
  //! outputs are arrays (bulk copies), and one output array of the inputs' size is formed from
  //! plain folds (no heads, no unit sums).
  static constexpr policy::pipelined_shape pipe = tune::pipelined();
  static constexpr bool pipelined_kernel = pipe.warps > 0 && std::is_pointer_v<decltype(Problem::in)> &&
                                           std::is_pointer_v<decltype(Problem::out)> && pipelined_sides<Problem>() &&
                                           !has_row_heads<Problem>::value && !has_complete_folds<Problem>::value &&
                                           !has_unit_sums<Problem>::value &&
                                           sizeof(typename Problem::output_t) == sizeof(input_t);
  using pipelined_policy = policy::pipelined_row_kernel<pipe.warps, pipe.items, pipe.stages, exact>;

  template <int Items>
  using row_policy = policy::row_kernel<Items, exact, rows_in_place<Problem>, tune>;
  template <int Items>
  using column_policy = policy::column_kernel<Items, exact, tune>;

  //! The kernels, in the launcher's numbering (plan/variants.hpp): row kernels by items, column
  //! kernels by rows, the odd twin last. The latency row kernel and the short column kernel are
  //! planned with their main kernel's slice.
  static constexpr kernel_variants variants() {
    kernel_variants v{};
    if constexpr (row_kernel) {
      add_rows(v);
    }
    add_columns(v);
    if constexpr (pipelined_kernel) {
      v.add({strategy::pipelined, pipe.items, pipe.warps, pipelined_policy::threads,
             pipelined_rows<pipelined_policy, Problem>::smem_bytes, false, pipe.stages});
    }
    return v;
  }
  //! The row kernel, and the latency and short row kernels where their items differ.
  static constexpr void add_rows(kernel_variants& v) {
    constexpr std::size_t slice = row_slices<Problem, row_items>::warp_bytes;
    v.add({strategy::rows, row_items, 1, row_policy<row_items>::threads, slice, false});
    if (row_latency_items != row_items) {
      v.add({strategy::rows, row_latency_items, 1, row_policy<row_latency_items>::threads, slice, false});
    }
    if (row_short_items < row_items && row_short_items != row_latency_items) {
      v.add({strategy::rows, row_short_items, 1, row_policy<row_short_items>::threads, slice, false});
    }
  }
  //! The column kernels by rows (the short, the main, the wide one), the odd twin last.
  static constexpr void add_columns(kernel_variants& v) {
    constexpr std::size_t plain = column_slice_bytes<input_t, column_items, column_vec>();
    constexpr std::size_t wide = column_slice_bytes<input_t, column_wide_items, column_vec>();
    if (column_small_items < column_items) {
      v.add({strategy::columns, column_small_items, column_vec, column_policy<column_small_items>::threads, plain, false});
    }
    v.add({strategy::columns, column_items, column_vec, column_policy<column_items>::threads, plain, false});
    if (column_wide_items > column_items) {
      v.add({strategy::columns, column_wide_items, column_vec, column_policy<column_wide_items>::threads, wide, false});
    }
    if (odd_kernel) {
      v.add({strategy::columns, column_wide_items, column_vec, column_policy<column_wide_items>::threads, wide, true});
    }
  }
  //! The types of a call: the pipelined kernel only for 16-byte aligned arrays (bulk copies).
  static scan_types types(const Problem& prob) {
    scan_types t = types();
    if constexpr (pipelined_kernel) {
      t.arrays_aligned = reinterpret_cast<std::uintptr_t>(prob.in) % 16 == 0 &&
                         reinterpret_cast<std::uintptr_t>(prob.out) % 16 == 0;
      if constexpr (has_side_output<Problem>) {
        t.arrays_aligned = t.arrays_aligned && reinterpret_cast<std::uintptr_t>(prob.side_out) % 16 == 0;
      }
    }
    return t;
  }
  static scan_types types() {
    scan_types t{};
    t.in_bytes = sizeof(input_t);
    t.acc_bytes = sizeof(acc_t);
    t.word_bytes = tile_word_bytes<acc_t>;
    t.flagged_bytes = sizeof(flagged<acc_t>);
    t.rows_in_place = rows_in_place<Problem>;
    t.exact = exact;
    t.variants = variants();
    t.column_latency_items = tune::column_latency_items();
    t.row_latency_items = row_latency_items;
    t.row_short_items = row_short_items;
    return t;
  }
};

//! Plans the scan; cudaErrorInvalidValue for shapes that cannot be scanned. Shape errors and empty
//! shapes are found before the device is asked anything; then one plan for the current device.
inline cudaError_t solve(Shape3 shape, const scan_types& types, plan& p) {
  p = plan{};
  Shape3 checked = shape;
  if (!plan_shape(checked, p)) {
    return p.valid ? cudaSuccess : cudaErrorInvalidValue;
  }
  device_limits dev;
  const cudaError_t err = query_device(dev);
  if (err != cudaSuccess) {
    return err;
  }
  p = make_plan(shape, types, dev);
  return p.valid ? cudaSuccess : cudaErrorInvalidValue;
}

//! The plan `Problem` takes for `shape` on the current device, in words (plan/explain.hpp); with
//! no device to ask, the plan for the solver's default device (an H200's SMs), said so.
template <class Problem>
std::string explain_problem(Shape3 shape) {
  const scan_types types = problem_kernels<Problem>::types();
  plan p;
  if (solve(shape, types, p) != cudaSuccess && p.valid) {
    return "(no device: planned for " + std::to_string(device_limits{}.sm_count) + " SMs) " +
           describe(shape, make_plan(shape, types, device_limits{}), types);
  }
  return describe(shape, p, types);
}

//! Polls of one window before a row look-back stops waiting and scans its predecessor itself
//! (row_tile_sequence): policy::lookback_stall_polls; tests lower it to make every wait stall.
inline std::atomic<unsigned>& lookback_stall_polls() {
  static std::atomic<unsigned> polls{policy::lookback_stall_polls};
  return polls;
}

//! The tile state of one launch. A call gets a fresh tag, and then nothing is enqueued but the
//! scan: stale tile words read as this call's empty state (tile_state.cuh). Row tiles are block
//! indices: a look-back that sees no progress scans the tile it waits on itself, so no tile
//! relies on the order blocks start in. Column tiles take their index from a ticket word, in the
//! order blocks start, so they only ever wait on tiles held by running blocks. The state is zeroed
//! instead (tag 0) when the stream is being captured into a graph (every replay of a graph reuses
//! the captured tag), or when a ticketed plan's count could reach its tag bits (2^22 tiles or more).
struct launch_state {
  unsigned long long* counter = nullptr;
  unsigned long long tag = 0;
  void* words = nullptr;
  void* group_words = nullptr;
  unsigned stall_polls = 0;
};
//! Where a look-back plan's tile words (and group words) lie in its temp storage.
inline void place_state(const plan& p, void* d_temp, std::size_t word_bytes, launch_state& s) {
  auto* const base = static_cast<unsigned char*>(d_temp);
  const std::int64_t channels = p.kind == strategy::columns ? p.tile_cols : 1;
  const temp_layout t = lookback_temp(p.num_tiles, channels, word_bytes, p.lookback_groups);
  s.words = base + t.tile_words;
  s.group_words = p.lookback_groups ? base + t.group_words : nullptr;
}
//! Plans whose tiles come from the ticket word: columns and the pipelined row.
inline bool ticketed(const plan& p) { return p.kind == strategy::columns || p.kind == strategy::pipelined; }
//! Whether a look-back plan's state is tagged (launch_state): not on a stream being captured, and
//! for ticketed plans only while the tickets stay below the tag bits (at most num_tiles + grid
//! tickets: below 2^23).
inline cudaError_t state_tagged(const plan& p, cudaStream_t stream, bool& tagged) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t err = cudaStreamIsCapturing(stream, &capture);
  tagged = capture == cudaStreamCaptureStatusNone && (!ticketed(p) || p.num_tiles < (std::int64_t{1} << (ticket_count_bits - 2)));
  return err;
}
//! The launch state of a look-back plan: its tag (0: zeroed state), ticket word and tile words.
inline void fill_state(const plan& p, void* d_temp, std::size_t word_bytes, bool tagged, launch_state& s) {
  s.tag = tagged ? next_tile_tag() : 0;
  s.counter = ticketed(p) ? static_cast<unsigned long long*>(d_temp) : nullptr;
  s.stall_polls = lookback_stall_polls().load(std::memory_order_relaxed);
  place_state(p, d_temp, word_bytes, s);
}
inline cudaError_t prepare_state(const plan& p, void* d_temp, std::size_t word_bytes, cudaStream_t stream,
                                 launch_state& s) {
  if (!p.lookback) {
    return cudaSuccess;
  }
  bool tagged = false;
  const cudaError_t err = state_tagged(p, stream, tagged);
  if (err != cudaSuccess) {
    return err;
  }
  fill_state(p, d_temp, word_bytes, tagged, s);
  return tagged ? cudaSuccess : cudaMemsetAsync(d_temp, 0, p.temp_bytes, stream);
}

inline launch_dims plan_dims(const plan& p) { return {p.grid, p.block_threads, p.smem_bytes, p.device}; }
//! An element-wise pass over n items (elementwise_grid).
inline launch_dims elementwise_dims(std::int64_t n) { return {elementwise_grid(n), policy::elementwise_threads}; }

//! Launches the kernels of one problem type for a plan.
template <class Problem>
struct launcher {
  using k = problem_kernels<Problem>;
  const plan& p;
  const Problem& prob;
  cudaStream_t stream;

  //! The row kernel's parameters, field by field from the plan and the launch state.
  row_scan_params row_params(const launch_state& s) const {
    row_scan_params r{};
    r.numel = p.layout.outer * p.layout.len;
    r.tile_items = p.tile_items;
    r.num_tiles = p.num_tiles;
    r.lookback = p.lookback;
    r.tile_words = s.words;
    r.tag = s.tag;
    r.prefetch_tiles = p.prefetch_tiles;
    r.first_poll_ns = p.first_poll_ns;
    r.stall_polls = s.stall_polls;
    return r;
  }
  //! The column kernels' parameters, likewise.
  column_scan_params column_params(const launch_state& s) const {
    const Shape3 shape = p.layout;
    column_scan_params c{};
    c.outer = shape.outer;
    c.len = shape.len;
    c.inner = shape.inner;
    c.tile_rows = p.tile_items;
    c.tile_cols = p.tile_cols;
    c.col_chunks = p.col_chunks;
    c.chains = shape.outer * p.col_chunks;
    c.num_tiles = p.num_tiles;
    c.by_chains = divisor(c.chains);
    c.by_chunks = divisor(p.col_chunks);
    c.lanes_x = p.lanes_x;
    c.lanes_y = p.lanes_y;
    c.lookback = p.lookback;
    c.lookback_cols = p.lookback_cols;
    c.tile_counter = s.counter;
    c.tile_words = s.words;
    c.group_words = s.group_words;
    c.tag = s.tag;
    c.prefetch_tiles = p.prefetch_tiles;
    c.items = p.items;
    c.first_poll_ns = p.first_poll_ns;
    return c;
  }

  //! The pipelined kernel's parameters.
  pipelined_row_params pipelined_params(const launch_state& s) const {
    return {p.layout.len, p.num_tiles, s.counter, s.words, s.tag};
  }

  //! Kernel I of the problem's list.
  template <int I>
  cudaError_t launch_variant(const launch_state& s) const {
    constexpr kernel_variant v = k::variants().at[I];
    if constexpr (v.kind == strategy::pipelined) {
      constexpr auto kernel = pipelined_rows_kernel<typename k::pipelined_policy, Problem>;
      const cudaError_t err = opt_in_smem<kernel>(p.device, v.slice_bytes);
      if (err != cudaSuccess) {
        return err;
      }
      return launch_kernel<kernel>(plan_dims(p), stream, prob, pipelined_params(s));
    } else if constexpr (v.kind == strategy::rows) {
      const positional_heads heads{p.layout.len, divisor(p.layout.len)};
      return launch_kernel<row_scan_kernel<typename k::template row_policy<v.items>, Problem, positional_heads>>(
          plan_dims(p), stream, prob, row_params(s), heads);
    } else {
      // A block per tile: the column kernels' strided loop is faster than their ticket loop.
      return launch_kernel<column_scan_kernel<typename k::template column_policy<v.items>, Problem, v.odd>>(
          plan_dims(p), stream, prob, column_params(s));
    }
  }
  template <int... I>
  cudaError_t launch_indexed(const launch_state& s, std::integer_sequence<int, I...>) const {
    cudaError_t err = cudaErrorInvalidValue;  // (an index the list lacks: never from the solver)
    ((p.variant == I ? (void)(err = launch_variant<I>(s)) : void()), ...);
    return err;
  }
  //! The plan's kernel (plan::variant).
  cudaError_t run(const launch_state& s) const {
    return launch_indexed(s, std::make_integer_sequence<int, k::variants().count>{});
  }
};

template <class Problem>
cudaError_t launch(const plan& p, void* d_temp, const Problem& prob, cudaStream_t stream) {
  if (p.kind == strategy::empty) {
    return cudaSuccess;
  }
  launch_state s;
  const cudaError_t err = prepare_state(p, d_temp, tile_word_bytes<typename Problem::acc_t>, stream, s);
  if (err != cudaSuccess) {
    return err;
  }
  return launcher<Problem>{p, prob, stream}.run(s);
}

//! Temp storage the caller provides (two-phase: a null `d_temp` asks for the size).
struct caller_temp {
  void* d_temp;
  std::size_t& temp_bytes;
};
//! Temp storage allocated and freed stream-ordered, when the plan needs it.
struct stream_temp {};

//! Two-phase temp storage once a call has sized its pieces (`needed` bytes): answers a size query
//! (a null d_temp; at least 1 byte, so that a size of zero is never taken for a query) or checks
//! the caller's storage. True when the call goes on; otherwise `err` is the call's result.
inline bool temp_ready(const void* d_temp, std::size_t& temp_bytes, std::size_t needed, cudaError_t& err) {
  err = d_temp != nullptr && temp_bytes < needed ? cudaErrorInvalidValue : cudaSuccess;
  if (d_temp == nullptr) temp_bytes = std::max<std::size_t>(needed, 1);
  return d_temp != nullptr && err == cudaSuccess;
}

//! A call's arguments past a size query: valid pointers and aligned temp storage, unless the shape
//! is empty.
inline bool call_valid(const void* d_temp, Shape3 shape, bool pointers_valid) {
  return d_temp == nullptr || is_empty(shape) || (pointers_valid && temp_aligned(d_temp));
}

//! Two-phase entry: a null `d_temp` asks for the size (always at least 1 byte, so that a size of
//! zero can never be mistaken for a query); otherwise validates and launches.
template <class Problem>
cudaError_t run(caller_temp temp, const Problem& prob, Shape3 shape, cudaStream_t stream, bool pointers_valid) {
  if (!call_valid(temp.d_temp, shape, pointers_valid)) {
    return cudaErrorInvalidValue;
  }
  plan p;
  // A size query holds every plan: it may come before the arrays are known.
  cudaError_t err = solve(
      shape, temp.d_temp == nullptr ? problem_kernels<Problem>::types() : problem_kernels<Problem>::types(prob), p);
  // (An empty plan needs no temp storage: its size answers a query, and any call passes.)
  if (err != cudaSuccess || !temp_ready(temp.d_temp, temp.temp_bytes, p.temp_bytes, err) || p.kind == strategy::empty) {
    return err;
  }
  return launch(p, temp.d_temp, prob, stream);
}

//! f(d_temp) with `bytes` of stream-ordered temp storage (cudaMallocAsync / cudaFreeAsync; none
//! for 0 bytes).
template <class F>
cudaError_t with_stream_bytes(std::size_t bytes, cudaStream_t stream, F&& f) {
  void* d_temp = nullptr;
  cudaError_t err = bytes > 0 ? cudaMallocAsync(&d_temp, bytes, stream) : cudaSuccess;
  if (err != cudaSuccess) return err;
  err = f(d_temp);
  const cudaError_t free_err = d_temp != nullptr ? cudaFreeAsync(d_temp, stream) : cudaSuccess;
  return err == cudaSuccess ? free_err : err;
}

//! One-call entry: the same validation, temp storage from cudaMallocAsync / cudaFreeAsync.
template <class Problem>
cudaError_t run(stream_temp, const Problem& prob, Shape3 shape, cudaStream_t stream, bool pointers_valid) {
  if (!pointers_valid && !is_empty(shape)) {
    return cudaErrorInvalidValue;
  }
  plan p;
  const cudaError_t err = solve(shape, problem_kernels<Problem>::types(prob), p);
  if (err != cudaSuccess || p.kind == strategy::empty) {
    return err;
  }
  return with_stream_bytes(p.temp_bytes, stream, [&](void* d_temp) { return launch(p, d_temp, prob, stream); });
}

//! A two-phase call `call(d_temp, temp_bytes)` made once with stream-ordered temp storage.
template <class TwoPhase>
cudaError_t with_stream_temp(TwoPhase&& call, cudaStream_t stream) {
  std::size_t bytes = 0;
  const cudaError_t err = call(nullptr, bytes);
  return err != cudaSuccess ? err : with_stream_bytes(bytes, stream, [&](void* d_temp) { return call(d_temp, bytes); });
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
