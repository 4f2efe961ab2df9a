// The look-back's tile state: whatever the temp storage held before a call (the state of an earlier
// call, arbitrary bytes) must never leak into its results, and scans captured into a CUDA graph
// must be right on every replay.
#include "common.cuh"

#include <map>

using namespace fstest;

namespace {

// Shapes whose plans look back: long rows, rows that start mid-tile, and columns.
const std::vector<fastscan::Shape3> lookback_shapes = {
    {1, std::int64_t{1} << 20, 1}, {3, 100003, 1}, {1, std::int64_t{1} << 16, 7}, {2, 4099, 64}, {1, 65536, 2}};

//! cummax of int64 (a two-part accumulator) or cumsum of int32 (one part) on `stream` with caller
//! temp storage; returns the number of wrong outputs.
struct scan_case {
  fastscan::Shape3 s;
  bool extreme;
  std::size_t numel() const { return static_cast<std::size_t>(s.outer * s.len * s.inner); }

  std::size_t temp_bytes() const {
    std::size_t bytes = 0;
    std::int64_t* const i64 = nullptr;
    std::int32_t* const i32 = nullptr;
    const auto err = extreme ? fastscan::cummax(nullptr, bytes, i64, i64, i64, s) : fastscan::cumsum(nullptr, bytes, i32, i32, s);
    REQUIRE(err == cudaSuccess);
    return bytes;
  }

  cudaError_t launch(void* temp, std::size_t bytes, const void* in, void* out, std::int64_t* idx,
                     cudaStream_t stream) const {
    return extreme ? fastscan::cummax(temp, bytes, static_cast<const std::int64_t*>(in), static_cast<std::int64_t*>(out),
                                      idx, s, stream)
                   : fastscan::cumsum(temp, bytes, static_cast<const std::int32_t*>(in), static_cast<std::int32_t*>(out),
                                      s, stream);
  }

  //! Uploads fresh random input for `seed` and returns the expected outputs.
  template <class T>
  void expected(std::uint64_t seed, device_buffer<T>& d_in, std::vector<std::int64_t>& values,
                std::vector<std::int64_t>& indices) const {
    const auto in = random_values<T>(numel(), seed);
    d_in.upload(in);
    values.assign(numel(), 0);
    if (extreme) {
      host_array<T> v;
      reference_extreme(in, v, indices, s, false, false);
      for (std::size_t i = 0; i < numel(); ++i) values[i] = static_cast<std::int64_t>(v[i]);
    } else {
      std::vector<double> sums, mags;
      std::vector<T> exact;
      reference_sum<T, T>(in, sums, mags, exact, s, false);
      for (std::size_t i = 0; i < numel(); ++i) values[i] = static_cast<std::int64_t>(exact[i]);
    }
  }
};

template <class T>
std::size_t count_wrong(const scan_case& c, const device_buffer<T>& d_out, const device_buffer<std::int64_t>& d_idx,
                        const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& indices) {
  const auto got = d_out.download();
  const auto got_idx = d_idx.download();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < c.numel(); ++i) {
    if (static_cast<std::int64_t>(got[i]) != values[i] || (c.extreme && got_idx[i] != indices[i])) ++bad;
  }
  return bad;
}

template <class T>
void check_stale_state(const scan_case& c) {
  const std::size_t bytes = c.temp_bytes();
  device_buffer<unsigned char> temp(bytes);
  device_buffer<T> d_in(c.numel()), d_out(c.numel());
  device_buffer<std::int64_t> d_idx(c.numel());
  std::vector<std::int64_t> values, indices;
  // Temp storage that holds: arbitrary bytes, then each earlier call's state, then zeros.
  const int fills[] = {0xff, -1, -1, 0x00};
  std::uint64_t seed = 11;
  for (int fill : fills) {
    if (fill >= 0) CUDA_REQUIRE(cudaMemset(temp.ptr, fill, bytes));
    c.expected<T>(++seed, d_in, values, indices);
    d_out.poison();
    d_idx.poison();
    CUDA_REQUIRE(c.launch(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_idx.ptr, nullptr));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CAPTURE(fill, seed);
    CHECK(count_wrong(c, d_out, d_idx, values, indices) == 0);
  }
}

template <class T>
void check_graph_replays(const scan_case& c) {
  const std::size_t bytes = c.temp_bytes();
  device_buffer<unsigned char> temp(bytes);
  device_buffer<T> d_in(c.numel()), d_out(c.numel());
  device_buffer<std::int64_t> d_idx(c.numel());
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t launched = c.launch(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_idx.ptr, stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  CUDA_REQUIRE(launched);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<std::int64_t> values, indices;
  for (std::uint64_t replay = 0; replay < 3; ++replay) {
    c.expected<T>(100 + replay, d_in, values, indices);
    d_out.poison();
    d_idx.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CAPTURE(replay);
    CHECK(count_wrong(c, d_out, d_idx, values, indices) == 0);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

//! Runs `check(case, element)` for every look-back shape, cummax int64 and cumsum int32.
template <class Check>
void for_each_case(Check&& check) {
  for (const auto& s : lookback_shapes) {
    for (bool extreme : {true, false}) {
      CAPTURE(shape_name(s), extreme ? "cummax int64" : "cumsum int32");
      if (extreme) check(scan_case{s, extreme}, std::int64_t{});
      else check(scan_case{s, extreme}, std::int32_t{});
    }
  }
}

}  // namespace

TEST_CASE("the look-back ignores whatever the temp storage held", "[gpu][lookback]") {
  for_each_case([](const scan_case& c, auto element) { check_stale_state<decltype(element)>(c); });
}

TEST_CASE("scans captured into a CUDA graph are right on every replay", "[gpu][lookback]") {
  for_each_case([](const scan_case& c, auto element) { check_graph_replays<decltype(element)>(c); });
}

TEST_CASE("column look-backs of every width per warp are exact", "[gpu][lookback]") {
  // A warp looks back for tile_cols / warps columns at once (32 / that many tiles per round trip);
  // find, for each width the solver can give, a shape that gets it, and scan it over stale state.
  using extreme_dispatch = fastscan::detail::dispatch<fastscan::detail::extreme_problem<std::int64_t, std::int64_t>>;
  using sum_dispatch = fastscan::detail::dispatch<fastscan::detail::sum_entry<std::int32_t, std::int32_t>::problem>;
  for (bool extreme : {true, false}) {
    std::map<int, fastscan::Shape3> by_width;
    for (std::int64_t inner : {2, 4, 8, 16, 32, 64, 256}) {
      for (std::int64_t len = 64; len <= (std::int64_t{1} << 18); len *= 2) {
        for (std::int64_t extra : {0, 3}) {
          const fastscan::Shape3 s{1, len + extra, inner};
          fastscan::plan p;
          REQUIRE((extreme ? extreme_dispatch::solve(s, p) : sum_dispatch::solve(s, p)) == cudaSuccess);
          if (p.kind != fastscan::strategy::columns || !p.lookback) continue;
          const int warps = p.block_threads / 32;
          const int width = p.tile_cols >= warps ? static_cast<int>(p.tile_cols) / warps : 1;
          by_width.emplace(width, s);
        }
      }
    }
    CAPTURE(extreme ? "cummax int64" : "cumsum int32");
    // (value, int64 index) tiles are at most 16 columns and never one warp wide: widths up to 8.
    for (int width = 1; width <= (extreme ? 8 : 16); width *= 2) {
      CAPTURE(width);
      REQUIRE(by_width.count(width) == 1);
    }
    for (const auto& [width, s] : by_width) {
      CAPTURE(width, shape_name(s));
      if (extreme) check_stale_state<std::int64_t>(scan_case{s, true});
      else check_stale_state<std::int32_t>(scan_case{s, false});
    }
  }
}
