// The look-back's tile state: whatever the temp storage held before a call (the state of an earlier
// call, arbitrary bytes) must never leak into its results, and scans captured into a CUDA graph
// must be right on every replay.
#include "common.cuh"

#include <algorithm>
#include <map>
#include <type_traits>

using namespace fstest;

namespace {

// Shapes whose plans look back: long rows, rows that start mid-tile, and columns.
const std::vector<fastscan::Shape3> lookback_shapes = {
    {1, std::int64_t{1} << 20, 1}, {3, 100003, 1}, {1, std::int64_t{1} << 16, 7}, {2, 4099, 64}, {1, 65536, 2},
    // Column look-backs along more chains than SMs: small blocks, many tiles per SM.
    {40, 999, 64}, {7, 777, 333},
    // Long rows: more than a thousand tiles in one chain, rows that start inside tiles.
    {3, 1700003, 1}, {1, 9000011, 1},
    // Narrow columns: one long chain with 8 rows per thread, and latency plans whose int64 cummax
    // takes fewer rows per thread than the kernel holds.
    {2, 300007, 4}, {1, 4096, 16}, {1, 16384, 4},
    // One long chain of int64 cummax columns split into two chains of 8 (the second partial).
    {1, 200003, 13}};

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
  // A warp looks back for tile_cols / warps columns at once (32 / that many tiles per round trip),
  // at least policy::column_lookback_min_cols_per_warp; find, for each width the solver can give
  // these exact operators, a shape that gets it, and scan it over stale state. (Float sums, one
  // column per warp, are the determinism test's [1, 2^20, 3] and [1, 65536, 64].)
  using extreme_dispatch = fstest::dispatch_of<fastscan::detail::extreme_problem<std::int64_t, std::int64_t>>;
  using sum_dispatch = fstest::dispatch_of<fastscan::detail::sum_entry<std::int32_t, std::int32_t>::problem>;
  for (bool extreme : {true, false}) {
    std::map<int, fastscan::Shape3> by_width;
    for (std::int64_t inner : {2, 4, 8, 16, 32, 64, 256}) {
      for (std::int64_t len = 64; len <= (std::int64_t{1} << 18); len *= 2) {
        for (std::int64_t extra : {0, 3}) {
          const fastscan::Shape3 s{1, len + extra, inner};
          fastscan::detail::plan p;
          REQUIRE((extreme ? extreme_dispatch::solve(s, p) : sum_dispatch::solve(s, p)) == cudaSuccess);
          if (p.kind != fastscan::detail::strategy::columns || !p.lookback) continue;
          const int warps = p.block_threads / 32;
          const int spread = p.tile_cols >= warps ? static_cast<int>(p.tile_cols) / warps : 1;
          const int least = std::min(static_cast<int>(p.tile_cols), fastscan::policy::column_lookback_min_cols_per_warp<true>);
          const int width = std::max(spread, least);
          by_width.emplace(width, s);
        }
      }
    }
    CAPTURE(extreme ? "cummax int64" : "cumsum int32");
    // Tiles are at most 16 columns and never one warp wide: widths 2 to 8.
    for (int width = 2; width <= 8; width *= 2) {
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

namespace {

template <class Acc>
__global__ void read_tile_words(fastscan::detail::tile_state<Acc> state, int tiles, unsigned* status, Acc* value) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (t < tiles) {
    typename fastscan::detail::tile_state<Acc>::words w;
    status[t] = state.read(t, 1, 0, w);
    value[t] = fastscan::detail::tile_state<Acc>::value(w);
  }
}

//! Words of `tiles` tiles, each written part by part as {part, tag << 2 | status}, read back by the
//! look-back's read(); returns the statuses it saw and the values.
template <class Acc>
void read_back(const std::vector<ulonglong2>& words, unsigned long long tag, std::vector<unsigned>& status,
               std::vector<Acc>& values) {
  constexpr int parts = fastscan::detail::tile_parts<Acc>;
  const int tiles = static_cast<int>(words.size() / parts);
  device_buffer<ulonglong2> d_words(words.size());
  d_words.upload(words);
  device_buffer<unsigned> d_status(tiles);
  device_buffer<Acc> d_values(tiles);
  read_tile_words<Acc><<<1, 64>>>(fastscan::detail::tile_state<Acc>{d_words.ptr, tag}, tiles, d_status.ptr, d_values.ptr);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto s = d_status.download();
  const auto v = d_values.download();
  status.assign(s.begin(), s.end());
  values.assign(v.begin(), v.end());
}

}  // namespace

TEST_CASE("the tile state reads only whole publications of the call's own tag", "[gpu][lookback]") {
  using namespace fastscan::detail;
  using pair_t = fastscan::value_index<std::int64_t>;  // two 8-byte parts
  static_assert(tile_parts<pair_t> == 2);
  for (unsigned long long tag : {0ull, 0x2bcd1234567ull, (1ull << 62) - 2}) {
    CAPTURE(tag);
    const unsigned long long other = tag ^ 0x5ull;
    auto word = [](std::uint64_t part, unsigned long long t, unsigned s) { return ulonglong2{part, (t << 2) | s}; };
    const pair_t v{-7, 123456789012345ll};
    std::uint64_t p[2];
    std::memcpy(p, &v, sizeof v);
    std::vector<ulonglong2> words = {
        word(p[0], tag, tile_aggregate), word(p[1], tag, tile_aggregate),      // 0: aggregate
        word(p[0], tag, tile_prefix),    word(p[1], tag, tile_prefix),         // 1: prefix
        word(p[0], tag, tile_aggregate), word(p[1], tag, tile_prefix),         // 2: parts of two publications
        word(p[0], other, tile_prefix),  word(p[1], other, tile_prefix),       // 3: another call's state
        word(p[0], tag, tile_prefix),    word(p[1], other, tile_prefix),       // 4: one part stale
        ulonglong2{0, 0},                ulonglong2{0, 0},                     // 5: zeros
        ulonglong2{~0ull, ~0ull},        ulonglong2{~0ull, ~0ull},             // 6: 0xff bytes
    };
    std::vector<unsigned> status;
    std::vector<pair_t> values;
    read_back<pair_t>(words, tag, status, values);
    REQUIRE(status.size() == 7);
    CHECK(status[0] == tile_aggregate);
    CHECK(status[1] == tile_prefix);
    CHECK(status[2] == tile_empty);
    CHECK(status[3] == tile_empty);
    CHECK(status[4] == tile_empty);
    CHECK(status[5] == tile_empty);
    CHECK(status[6] == tile_empty);
    for (int t : {0, 1}) {
      CHECK(values[t].value == v.value);
      CHECK(values[t].index == v.index);
    }
    // One-part accumulators: the same rules on single words.
    std::vector<ulonglong2> single = {word(42, tag, tile_aggregate), word(43, tag, tile_prefix), word(44, other, tile_prefix),
                                      ulonglong2{~0ull, ~0ull}};
    std::vector<unsigned> s1;
    std::vector<std::int64_t> v1;
    read_back<std::int64_t>(single, tag, s1, v1);
    CHECK(s1[0] == tile_aggregate);
    CHECK(v1[0] == 42);
    CHECK(s1[1] == tile_prefix);
    CHECK(v1[1] == 43);
    CHECK(s1[2] == tile_empty);
    CHECK(s1[3] == tile_empty);
  }
}

TEST_CASE("float sums are bitwise the same on every run, whatever the temp storage held", "[gpu][lookback]") {
  // Float addition is not associative: the look-back must always fold from a published prefix in
  // one order. 20 runs over zeroed, 0xff-filled and stale temp storage, compared bit for bit.
  for (const auto& s : lookback_shapes) {
    CAPTURE(shape_name(s));
    const std::size_t n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    // Finite values of many magnitudes, so that the order of the additions shows in the bits.
    host_array<float> in(n);
    std::mt19937_64 rng(77);
    for (auto& x : in) {
      x = std::ldexp(static_cast<float>(static_cast<int>(rng() % 2001) - 1000), -static_cast<int>(rng() % 12));
    }
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::cumsum(nullptr, bytes, d_in.ptr, d_out.ptr, s));
    device_buffer<unsigned char> temp(bytes);
    host_array<float> first;
    for (int run = 0; run < 20; ++run) {
      if (run % 5 == 0) CUDA_REQUIRE(cudaMemset(temp.ptr, run % 10 == 0 ? 0x00 : 0xff, bytes));
      d_out.poison();
      CUDA_REQUIRE(fastscan::cumsum(temp.ptr, bytes, d_in.ptr, d_out.ptr, s));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const auto got = d_out.download();
      if (run == 0) {
        first = got;
        // And the sums are sums: within float rounding of a double reference.
        std::vector<double> sums, mags;
        std::vector<float> exact;
        reference_sum<float, float>(in, sums, mags, exact, s, false);
        std::size_t far = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (!std::isfinite(got[i]) || std::fabs(static_cast<double>(got[i]) - sums[i]) > 1e-4 * mags[i] + 1e-6) ++far;
        }
        CHECK(far == 0);
        continue;
      }
      CAPTURE(run);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (!same_bits(got[i], first[i])) ++differ;
      }
      CHECK(differ == 0);
    }
  }
}

namespace {

//! Scans `c` through dispatch<Problem>::launch with the plan the solver makes for the running device
//! with its grid capped at `max_grid` blocks, over temp storage full of garbage; returns the wrong
//! outputs, or -1 when the plan's grid holds every tile (nothing to test).
template <class Problem, class T>
long long count_wrong_capped(const scan_case& c, std::int64_t max_grid, bool& looked_back) {
  using dispatch = fstest::dispatch_of<Problem>;
  fastscan::detail::device_limits dev;
  CUDA_REQUIRE(fastscan::detail::query_device(dev));
  dev.max_grid_x = max_grid;
  const fastscan::detail::plan p = fastscan::detail::make_plan(c.s, dispatch::types(), dev);
  REQUIRE(p.valid);
  if (p.grid >= p.num_tiles) return -1;
  looked_back = p.lookback;
  device_buffer<unsigned char> temp(std::max<std::size_t>(p.temp_bytes, 16));
  CUDA_REQUIRE(cudaMemset(temp.ptr, 0xff, std::max<std::size_t>(p.temp_bytes, 16)));  // no zeroed counter to lean on
  device_buffer<T> d_in(c.numel()), d_out(c.numel());
  device_buffer<std::int64_t> d_idx(c.numel());
  std::vector<std::int64_t> values, indices;
  c.expected<T>(300 + static_cast<std::uint64_t>(max_grid), d_in, values, indices);
  d_out.poison();
  d_idx.poison();
  Problem prob{};
  if constexpr (std::is_same_v<Problem, fastscan::detail::extreme_problem<std::int64_t, std::int64_t>>) {
    prob = Problem{d_in.ptr, d_out.ptr, d_idx.ptr, {}, {}};
  } else {
    prob = Problem{{}, d_in.ptr, d_out.ptr, false};
  }
  CUDA_REQUIRE(dispatch::launch(p, temp.ptr, prob, nullptr));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  return static_cast<long long>(count_wrong(c, d_out, d_idx, values, indices));
}

}  // namespace

TEST_CASE("grids smaller than their tiles loop over them, over temp storage no pass zeroes", "[gpu][lookback]") {
  // A plan whose grid cannot hold one block per tile (device_limits::max_grid_x) loops its blocks
  // over tiles: row tiles by block index, column tiles that look back from the ticket word in the
  // order blocks start them, over temp storage of 0xff bytes that no zeroing pass clears (the
  // tagged ticket word claims it). The solver plans the same shapes for the running device with
  // its grid capped.
  using extreme_problem = fastscan::detail::extreme_problem<std::int64_t, std::int64_t>;  // cummax's operator
  using sum_problem = fastscan::detail::sum_entry<std::int32_t, std::int32_t>::problem;
  std::vector<fastscan::Shape3> shapes = lookback_shapes;
  shapes.push_back({4096, 4096, 1});  // rows that fill whole tiles: no look-back
  shapes.push_back({64, 8, 4096});    // columns that fit one tile along len: no look-back
  int counted = 0, strided = 0;
  for (const auto& s : shapes) {
    for (const std::int64_t max_grid : {1, 7, 64}) {
      if (max_grid == 1 && s.outer * s.len * s.inner > (1 << 20)) continue;  // one block through millions: slow under the sanitizers
      for (bool extreme : {true, false}) {
        CAPTURE(shape_name(s), max_grid, extreme ? "cummax int64" : "cumsum int32");
        const scan_case c{s, extreme};
        bool looked_back = false;
        const long long wrong = extreme ? count_wrong_capped<extreme_problem, std::int64_t>(c, max_grid, looked_back)
                                        : count_wrong_capped<sum_problem, std::int32_t>(c, max_grid, looked_back);
        if (wrong < 0) continue;
        CHECK(wrong == 0);
        ++(looked_back ? counted : strided);
      }
    }
  }
  // Both kinds ran: tiles with a look-back and tiles without.
  CHECK(counted > 0);
  CHECK(strided > 0);

  // Float sums (ordered look-backs; along one chain of columns in two levels, whose group state is
  // tagged too), on sums exact in float.
  using float_dispatch = fstest::dispatch_of<fastscan::detail::sum_entry<float, float>::problem>;
  fastscan::detail::device_limits dev;
  CUDA_REQUIRE(fastscan::detail::query_device(dev));
  dev.max_grid_x = 7;
  bool grouped = false;
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, (1 << 20) + 5, 4}, fastscan::Shape3{1, 300001, 3},
                                   fastscan::Shape3{3, 1700003, 1}, fastscan::Shape3{2, 4099, 64}}) {
    CAPTURE(shape_name(s));
    const fastscan::detail::plan p = fastscan::detail::make_plan(s, float_dispatch::types(), dev);
    REQUIRE(p.valid);
    REQUIRE(p.lookback);
    REQUIRE(p.grid < p.num_tiles);
    grouped = grouped || p.lookback_groups;
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    const auto in = random_values<float>(n, 400);
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    d_out.poison();
    device_buffer<unsigned char> temp(p.temp_bytes);
    CUDA_REQUIRE(cudaMemset(temp.ptr, 0xff, p.temp_bytes));
    const fastscan::detail::sum_entry<float, float>::problem prob{{}, d_in.ptr, d_out.ptr, false};
    CUDA_REQUIRE(float_dispatch::launch(p, temp.ptr, prob, nullptr));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    std::vector<double> sums, mags;
    std::vector<float> exact;
    reference_sum<float, float>(in, sums, mags, exact, s, false);
    const auto got = d_out.download();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      bad += std::isnan(sums[i]) ? !std::isnan(got[i]) : !same_bits(got[i], static_cast<float>(sums[i]));
    }
    CHECK(bad == 0);
  }
  CHECK(grouped);
}

TEST_CASE("temp storage that holds a saved dump of an earlier call's tile state is harmless", "[gpu][lookback]") {
  // A dump of the state one call left (what another process or an earlier run leaves in memory)
  // under the next call: its tag differs, so nothing in the dump counts. The control rewinds the
  // tag sequence so that the next call reuses the dump's tag, and that call does misread it: this
  // is why tags never repeat within a process (a random seed, then a counter) and why graph
  // replays, which repeat their captured tag, zero the state first (the graph tests).
  std::vector<unsigned long long> tags(1 << 20);
  for (auto& t : tags) t = fastscan::detail::next_tile_tag();
  std::sort(tags.begin(), tags.end());
  CHECK(std::adjacent_find(tags.begin(), tags.end()) == tags.end());
  CHECK(tags.front() != 0);

  const auto check_dump = [](const scan_case& c, auto element, bool control) {
    using T = decltype(element);
    CAPTURE(shape_name(c.s), c.extreme);
    const std::size_t bytes = c.temp_bytes();
    device_buffer<unsigned char> temp(bytes);
    device_buffer<T> d_in(c.numel()), d_out(c.numel());
    device_buffer<std::int64_t> d_idx(c.numel());
    std::vector<std::int64_t> values, indices;
    const auto run = [&](std::uint64_t seed) {
      c.expected<T>(seed, d_in, values, indices);
      d_out.poison();
      d_idx.poison();
      CUDA_REQUIRE(c.launch(temp.ptr, bytes, d_in.ptr, d_out.ptr, d_idx.ptr, nullptr));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      return count_wrong<T>(c, d_out, d_idx, values, indices);
    };
    const unsigned long long first_tag = fastscan::detail::tile_tags().load();
    CHECK(run(21) == 0);
    const auto dump = temp.download();
    temp.upload(dump);
    CHECK(run(22) == 0);  // over the dump
    if (control) {  // the dump's own tag again (a long chain: some tile looks back before its predecessor publishes)
      temp.upload(dump);
      const unsigned long long next_tag = fastscan::detail::tile_tags().load();
      fastscan::detail::tile_tags().store(first_tag);
      CHECK(run(23) > 0);
      // Back past every tag used: a later call that reused one could misread what freed temp
      // storage still holds at the same address (the likely cause of float bits that differed in a
      // later test of this binary, which a fresh process did not reproduce).
      fastscan::detail::tile_tags().store(next_tag);
    }
  };
  check_dump(scan_case{{1, 9000011, 1}, true}, std::int64_t{}, true);
  check_dump(scan_case{{40, 999, 64}, false}, std::int32_t{}, false);
}

namespace {

//! Sets the polls a row look-back waits through before it scans the tile it waits on itself, for one scope.
struct stall_polls_guard {
  unsigned saved = fastscan::detail::lookback_stall_polls().load();
  explicit stall_polls_guard(unsigned polls) { fastscan::detail::lookback_stall_polls().store(polls); }
  ~stall_polls_guard() { fastscan::detail::lookback_stall_polls().store(saved); }
};

//! The row kernel with its tiles in reverse order, gridDim.x at a time: every look-back waits on
//! tiles that start only once it has ended, an order nothing in CUDA rules out.
template <class Policy, class Problem>
__global__ void reversed_rows(Problem prob, fastscan::detail::row_scan_params p, fastscan::detail::positional_heads heads) {
  extern __shared__ __align__(16) unsigned char smem[];
  for (std::int64_t k = blockIdx.x; k < p.num_tiles; k += gridDim.x) {
    fastscan::detail::row_tile_sequence<Policy>(prob, p, heads, p.num_tiles - 1 - k, smem);
  }
}

//! Scans `prob` over `s` through reversed_rows on `blocks` blocks, with the state dispatch gives it.
template <class Problem>
void scan_reversed(const Problem& prob, fastscan::Shape3 s, unsigned blocks) {
  namespace d = fastscan::detail;
  using k = d::problem_kernels<Problem>;
  d::plan p;
  CUDA_REQUIRE(d::solve(s, k::types(), p));
  REQUIRE(p.kind == d::strategy::rows);
  REQUIRE(p.lookback);
  device_buffer<unsigned char> temp(p.temp_bytes);
  CUDA_REQUIRE(cudaMemset(temp.ptr, 0xff, p.temp_bytes));
  d::launch_state st;
  CUDA_REQUIRE(d::prepare_state(p, temp.ptr, d::tile_word_bytes<typename Problem::acc_t>, nullptr, st));
  const d::row_scan_params params{p.layout.outer * p.layout.len, p.tile_items, p.num_tiles, true, st.words, st.tag, 0, 0,
                                  st.stall_polls};
  const d::positional_heads heads{p.layout.len, d::divisor(p.layout.len)};
  // The row kernel of the plan's items: the main, the latency or the short one.
  const auto launch = [&](auto items) {
    constexpr int I = decltype(items)::value;
    if (p.items != I) return false;
    reversed_rows<typename k::template row_policy<I>, Problem><<<blocks, p.block_threads, p.smem_bytes>>>(prob, params, heads);
    return true;
  };
  REQUIRE((launch(std::integral_constant<int, k::row_items>{}) || launch(std::integral_constant<int, k::row_latency_items>{}) ||
           launch(std::integral_constant<int, k::row_short_items>{})));
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

//! Floats of many magnitudes (the order of additions shows in the bits), with ties and NaNs.
host_array<float> order_sensitive(std::size_t n, std::uint64_t seed) {
  host_array<float> in(n);
  std::mt19937_64 rng(seed);
  for (auto& x : in) {
    x = std::ldexp(static_cast<float>(static_cast<int>(rng() % 2001) - 1000), -static_cast<int>(rng() % 12));
  }
  return in;
}

//! The library's cumsum (float) and cummax (float, with NaNs) of `in` over `s`, outputs then
//! indices, on a plain call.
struct row_results {
  host_array<float> sums, maxima;
  host_array<std::int64_t> indices;
};
row_results plain_calls(const host_array<float>& in, fastscan::Shape3 s) {
  device_buffer<float> d_in(in.size()), d_sum(in.size()), d_max(in.size());
  device_buffer<std::int64_t> d_idx(in.size());
  d_in.upload(in);
  CUDA_REQUIRE(fastscan::cumsum(d_in.ptr, d_sum.ptr, s));
  CUDA_REQUIRE(fastscan::cummax(d_in.ptr, d_max.ptr, d_idx.ptr, s));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  return {d_sum.download(), d_max.download(), d_idx.download()};
}

template <class T>
std::size_t differing(const host_array<T>& a, const host_array<T>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) n += !same_bits(a[i], b[i]);
    else n += a[i] != b[i];
  }
  return n;
}

// ([8, 4096] and [1000, 777]: tiles that start at a row head, whose block finishes at once as a
// helper, below tiles whose window holds older tiles not yet published.)
const std::vector<fastscan::Shape3> stall_shapes = {
    {1, (std::int64_t{1} << 18) + 3, 1}, {3, 100003, 1}, {1000, 777, 1}, {2, 300007, 1}, {8, 4096, 1}};

}  // namespace

TEST_CASE("row tiles run in reverse order finish, with the bits of a plain call", "[gpu][lookback][progress]") {
  // No tile's predecessor starts before the tile ends: each look-back stops waiting after its
  // polls and scans the tile it waited on in its place, without outputs, then tries again.
  namespace d = fastscan::detail;
  const stall_polls_guard guard(64);
  for (const auto& s : stall_shapes) {
    for (const unsigned blocks : {1u, 3u}) {
      CAPTURE(shape_name(s), blocks);
      const std::size_t n = static_cast<std::size_t>(s.outer * s.len);
      auto in = order_sensitive(n, 31 + blocks);
      for (std::size_t i = 0; i < n; i += 97) in[i] = std::nanf("");
      const row_results plain = plain_calls(in, s);
      device_buffer<float> d_in(n), d_out(n);
      device_buffer<std::int64_t> d_idx(n);
      d_in.upload(in);
      d_out.poison();
      scan_reversed(d::sum_entry<float, float>::problem{{}, d_in.ptr, d_out.ptr, false}, s, blocks);
      CHECK(differing(d_out.download(), plain.sums) == 0);
      d_out.poison();
      d_idx.poison();
      scan_reversed(d::extreme_problem<float, std::int64_t>{d_in.ptr, d_out.ptr, d_idx.ptr, {}, {}}, s, blocks);
      CHECK(differing(d_out.download(), plain.maxima) == 0);
      CHECK(differing(d_idx.download(), plain.indices) == 0);
    }
  }
}

TEST_CASE("row helpers never take outputs written in place for inputs", "[gpu][lookback][progress]") {
  // Tiles run in reverse order on many blocks at once, each look-back giving up after few polls, so
  // helpers scan tiles whose own blocks publish their prefixes and write their outputs over their
  // inputs beside them: a helper's aggregate over such a prefix would let the next helper fold
  // outputs. One-word (int64 sums) and two-word ((value, index)) publications.
  namespace d = fastscan::detail;
  for (const unsigned polls : {0u, 16u}) {
    const stall_polls_guard guard(polls);
    for (const auto& s : stall_shapes) {
      CAPTURE(shape_name(s), polls);
      const std::size_t n = static_cast<std::size_t>(s.outer * s.len);
      auto in = order_sensitive(n, 71);
      for (std::size_t i = 0; i < n; i += 89) in[i] = std::nanf("");
      const row_results plain = plain_calls(in, s);
      host_array<std::int64_t> ints(n), want(n);
      std::mt19937_64 rng(72);
      for (std::size_t i = 0; i < n; ++i) {
        ints[i] = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
        want[i] = ints[i] + (i % static_cast<std::size_t>(s.len) == 0 ? 0 : want[i - 1]);
      }
      for (const unsigned blocks : {4u, 64u}) {
        CAPTURE(blocks);
        device_buffer<float> d_buf(n);
        device_buffer<std::int64_t> d_idx(n), d_ints(n);
        d_buf.upload(in);
        d_idx.poison();
        scan_reversed(d::extreme_problem<float, std::int64_t>{d_buf.ptr, d_buf.ptr, d_idx.ptr, {}, {}}, s, blocks);
        CHECK(differing(d_buf.download(), plain.maxima) == 0);
        CHECK(differing(d_idx.download(), plain.indices) == 0);
        d_ints.upload(ints);
        scan_reversed(d::sum_entry<std::int64_t, std::int64_t>::problem{{}, d_ints.ptr, d_ints.ptr, false}, s, blocks);
        CHECK(differing(d_ints.download(), want) == 0);
      }
    }
  }
}

TEST_CASE("row look-backs that stop at their first unready poll give the bits of waiting", "[gpu][lookback]") {
  // Every window a look-back finds unready sends its block to scan that tile itself, while other
  // tiles publish beside it: the results of exact scans are right, and float sums keep the waiting
  // run's bits. (Small shapes: with no polls to spare, helpers cascade, quadratic in the tiles.)
  const auto waited = [] {
    std::vector<row_results> r;
    for (const auto& s : stall_shapes) r.push_back(plain_calls(order_sensitive(static_cast<std::size_t>(s.outer * s.len), 5), s));
    return r;
  }();
  const stall_polls_guard guard(0);
  for_each_case([](const scan_case& c, auto element) {
    if (c.s.inner == 1 && c.numel() <= (std::size_t{1} << 17)) check_stale_state<decltype(element)>(c);
  });
  for (std::size_t k = 0; k < stall_shapes.size(); ++k) {
    const auto& s = stall_shapes[k];
    CAPTURE(shape_name(s));
    const row_results fell = plain_calls(order_sensitive(static_cast<std::size_t>(s.outer * s.len), 5), s);
    CHECK(differing(fell.sums, waited[k].sums) == 0);
    CHECK(differing(fell.maxima, waited[k].maxima) == 0);
    CHECK(differing(fell.indices, waited[k].indices) == 0);
  }
}

TEST_CASE("one long row of (value, index) pairs through the pipelined kernel equals the row kernel", "[gpu][lookback][large]") {
  // 16-byte aligned arrays take the pipelined kernel from its minimum length; the same call on
  // arrays one element off alignment takes the row kernel. Both must agree bit for bit (values and
  // indices, ties and a tail no bulk copy covers), and the values must be the running maxima.
  const std::int64_t min = fastscan::policy::pipelined_rows_min_items(16);
  for (const std::int64_t len : {min + 3, 2 * min + 77}) {
    CAPTURE(len);
    const auto n = static_cast<std::size_t>(len);
    host_array<std::int64_t> in(n);
    std::mt19937_64 rng(static_cast<unsigned>(n));
    for (std::size_t i = 0; i < n; ++i) {
      in[i] = static_cast<std::int64_t>(rng() % 1000) + static_cast<std::int64_t>(i / (n / 5 + 1)) * 300;  // (ties)
    }
    device_buffer<std::int64_t> d_in(n + 2), values(n + 2), indices(n + 2);
    std::vector<std::int64_t> got_v[2], got_i[2];
    for (int off = 0; off < 2; ++off) {
      CUDA_REQUIRE(cudaMemcpy(d_in.ptr + off, in.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
      values.poison();
      indices.poison();
      CUDA_REQUIRE(fastscan::cummax(d_in.ptr + off, values.ptr + off, indices.ptr + off, fastscan::Shape3{1, len, 1}));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const auto v = values.download(), ix = indices.download();
      got_v[off].assign(v.begin() + off, v.begin() + off + len);
      got_i[off].assign(ix.begin() + off, ix.begin() + off + len);
    }
    std::size_t differ = 0, wrong = 0;
    std::int64_t run = in[0];
    for (std::size_t i = 0; i < n; ++i) {
      run = std::max(run, in[i]);
      differ += got_v[0][i] != got_v[1][i] || got_i[0][i] != got_i[1][i];
      const auto at = got_i[0][i];
      wrong += got_v[0][i] != run || at < 0 || static_cast<std::size_t>(at) > i || in[static_cast<std::size_t>(at)] != run;
    }
    CHECK(differ == 0);
    CHECK(wrong == 0);
  }
}
