// Reliability: every entry point captured into a CUDA graph and replayed, scans on many streams and
// host threads at once, one temp buffer reused back to back, forward progress while other work holds
// the SMs, and pointers as users pass them (offset by one element, in place, overlapping, temp
// storage misaligned). Inputs are integers held in float, so every sum is exact in any order and
// each output is compared bit for bit with a host loop.
#include "common.cuh"

#include <fastscan/bev.cuh>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

using namespace fstest;

namespace reliability_ops {
struct max_int {
  __host__ __device__ std::int32_t operator()(std::int32_t a, std::int32_t b) const { return a > b ? a : b; }
};
struct max_float {
  __host__ __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};
}  // namespace reliability_ops
using reliability_ops::max_float;
using reliability_ops::max_int;

namespace {

//! Integer-valued floats in [-8, 8] (a NaN every `nan_every` elements when non-zero).
host_array<float> small_floats(std::size_t n, std::uint64_t seed, std::size_t nan_every = 0) {
  std::mt19937_64 rng(seed);
  host_array<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = nan_every != 0 && rng() % nan_every == 0 ? std::nanf("") : static_cast<float>(static_cast<int>(rng() % 17) - 8);
  }
  return v;
}
//! Sorted keys: runs of 1 to 2 * mean rows.
std::vector<std::int32_t> sorted_keys(std::int64_t S, std::uint64_t seed, int mean) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> k(static_cast<std::size_t>(S));
  std::int32_t key = 0;
  for (auto& x : k) {
    if (rng() % static_cast<std::uint64_t>(mean) == 0) key += 1 + static_cast<std::int32_t>(rng() % 3);
    x = key;
  }
  return k;
}

template <class T>
std::vector<T> fetch(const T* p, std::size_t n) {  // no Catch2 macros: host threads call it
  std::vector<T> h(n);
  if (n > 0 && cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) h.clear();
  return h;
}
template <class A, class B>
std::size_t count_differ(const std::vector<A>& got, const std::vector<B>& want) {
  if (got.size() != want.size()) return want.size() + 1;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) bad += !same_bits(got[i], static_cast<A>(want[i]));
  return bad;
}

//! One entry point on device buffers: inputs (refill), the two-phase call (launch), and the outputs
//! against a host loop (wrong). launch and wrong use no Catch2 macros.
struct call {
  std::string name;
  std::size_t off = 0;  //!< every array starts this many elements into its buffer (one spare each)
  explicit call(std::string n) : name(std::move(n)) {}
  template <class T>
  T* at(const device_buffer<T>& b) const {
    return b.ptr == nullptr ? nullptr : b.ptr + off;
  }
  template <class T, class H>
  void upload(device_buffer<T>& b, const H& h) const {
    CUDA_REQUIRE(cudaMemcpy(at(b), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  virtual ~call() = default;
  virtual cudaError_t launch(void* temp, std::size_t& bytes, cudaStream_t stream) = 0;
  virtual void refill(std::uint64_t seed) = 0;  // new inputs and their expected outputs
  virtual void poison(cudaStream_t stream) = 0;
  virtual std::size_t wrong() const = 0;
  std::size_t temp_bytes() {
    std::size_t bytes = 0;
    CUDA_REQUIRE(launch(nullptr, bytes, nullptr));
    return bytes;
  }
};

template <class T>
void poison_async(device_buffer<T>& b, cudaStream_t stream) {
  CUDA_REQUIRE(cudaMemsetAsync(b.ptr, 0x5b, b.count * sizeof(T), stream));
}

struct cummax_call : call {
  fastscan::Shape3 s;
  std::size_t n;
  device_buffer<float> in, values;
  device_buffer<std::int64_t> indices;
  host_array<float> want_v;
  std::vector<std::int64_t> want_i;
  explicit cummax_call(fastscan::Shape3 shape)
      : call("cummax " + shape_name(shape)), s(shape), n(static_cast<std::size_t>(s.outer * s.len * s.inner)), in(n + 1),
        values(n + 1), indices(n + 1) {}
  cudaError_t launch(void* temp, std::size_t& bytes, cudaStream_t stream) override {
    return fastscan::cummax<float, std::int64_t, fastscan::Tie::last>(temp, bytes, at(in), at(values), at(indices), s,
                                                                       stream);
  }
  void refill(std::uint64_t seed) override {
    const auto h = small_floats(n, seed, 997);
    upload(in, h);
    reference_extreme(h, want_v, want_i, s, false, false);
  }
  void poison(cudaStream_t stream) override {
    poison_async(values, stream);
    poison_async(indices, stream);
  }
  std::size_t wrong() const override {
    return count_differ(fetch(at(values), n), want_v.to_vector()) + count_differ(fetch(at(indices), n), want_i);
  }
};

//! cumsum or exclusive_cumsum of int32 into int64 or of int64 (one long row of them is pipelined on
//! aligned arrays), or the generic scan with max over int32.
struct sum_call : call {
  enum kind_t { inclusive, exclusive, generic_max, inclusive64, exclusive64 } kind;
  fastscan::Shape3 s;
  std::size_t n;
  device_buffer<std::int32_t> in, out32;
  device_buffer<std::int64_t> in64, out64;
  std::vector<std::int64_t> want;
  static bool int64_in(kind_t k) { return k == inclusive64 || k == exclusive64; }
  sum_call(kind_t k, fastscan::Shape3 shape)
      : call(std::string(k == inclusive || k == inclusive64 ? "cumsum "
                         : k == generic_max                 ? "inclusive_scan max "
                                                            : "exclusive_cumsum ") +
             (int64_in(k) ? "int64 " : "") + shape_name(shape)),
        kind(k), s(shape), n(static_cast<std::size_t>(s.outer * s.len * s.inner)), in(int64_in(k) ? 0 : n + 1),
        out32(k == generic_max ? n + 1 : 0), in64(int64_in(k) ? n + 1 : 0), out64(k == generic_max ? 0 : n + 1) {}
  cudaError_t launch(void* temp, std::size_t& bytes, cudaStream_t stream) override {
    switch (kind) {
      case inclusive: return fastscan::cumsum(temp, bytes, at(in), at(out64), s, stream);
      case exclusive: return fastscan::exclusive_cumsum(temp, bytes, at(in), at(out64), s, stream);
      case inclusive64: return fastscan::cumsum(temp, bytes, at(in64), at(out64), s, stream);
      case exclusive64: return fastscan::exclusive_cumsum(temp, bytes, at(in64), at(out64), s, stream);
      default: return fastscan::inclusive_scan(temp, bytes, at(in), at(out32), max_int{}, s, stream);
    }
  }
  void refill(std::uint64_t seed) override {
    const auto h = random_values<std::int32_t>(n, seed);
    if (int64_in(kind)) {
      upload(in64, std::vector<std::int64_t>(h.begin(), h.end()));
    } else {
      upload(in, h);
    }
    want.assign(n, 0);
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t c = 0; c < s.inner; ++c) {
        std::int64_t run = 0;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
          const std::int64_t x = h[at];
          if (kind == generic_max) run = i == 0 ? x : std::max(run, x);
          if (kind == exclusive || kind == exclusive64) want[at] = run;
          if (kind != generic_max) run += x;
          if (kind != exclusive && kind != exclusive64) want[at] = run;
        }
      }
    }
  }
  void poison(cudaStream_t stream) override { kind == generic_max ? poison_async(out32, stream) : poison_async(out64, stream); }
  std::size_t wrong() const override {
    return kind == generic_max ? count_differ(fetch(at(out32), n), want) : count_differ(fetch(at(out64), n), want);
  }
};

//! The segmented entry points on [S, C] float rows with sorted int32 keys (or unsorted, for the
//! BEV ones): segmented_cumsum, segmented_inclusive_scan (max), segment_sum.
struct segmented_call : call {
  enum kind_t { cumsum, scan_max, sums } kind;
  std::int64_t S, C;
  device_buffer<float> feats, out;
  device_buffer<std::int32_t> keys, unique;
  device_buffer<std::int64_t> count;
  std::vector<float> want_out;
  std::vector<std::int32_t> want_unique;
  segmented_call(kind_t k, std::int64_t rows, std::int64_t cols)
      : call(std::string(k == cumsum ? "segmented_cumsum" : k == scan_max ? "segmented_inclusive_scan max" : "segment_sum") +
             " S=" + std::to_string(rows) + " C=" + std::to_string(cols)),
        kind(k), S(rows), C(cols), feats(static_cast<std::size_t>(S * C) + 1), out(static_cast<std::size_t>(S * C) + 1),
        keys(static_cast<std::size_t>(S) + 1), unique(static_cast<std::size_t>(S) + 1), count(2) {}
  cudaError_t launch(void* temp, std::size_t& bytes, cudaStream_t stream) override {
    switch (kind) {
      case cumsum: return fastscan::segmented_cumsum(temp, bytes, at(feats), at(keys), at(out), S, C, stream);
      case scan_max:
        return fastscan::segmented_inclusive_scan(temp, bytes, at(feats), at(keys), at(out), max_float{}, S, C,
                                                  stream);
      default: return fastscan::segment_sum(temp, bytes, at(feats), at(keys), at(unique), at(out), at(count), S, C, stream);
    }
  }
  void refill(std::uint64_t seed) override {
    const auto f = small_floats(static_cast<std::size_t>(S * C), seed);
    const auto k = sorted_keys(S, seed + 1, 40);
    upload(feats, f);
    upload(keys, k);
    want_out.assign(static_cast<std::size_t>(S * C), 0.f);
    want_unique.clear();
    for (std::int64_t i = 0; i < S; ++i) {
      const bool head = i == 0 || k[i] != k[i - 1];
      if (head) want_unique.push_back(k[i]);
      const auto v = static_cast<std::int64_t>(want_unique.size()) - 1;
      for (std::int64_t c = 0; c < C; ++c) {
        const float x = f[static_cast<std::size_t>(i * C + c)];
        const auto at = static_cast<std::size_t>(i * C + c);
        if (kind == sums) {
          want_out[static_cast<std::size_t>(v * C + c)] = head ? x : want_out[static_cast<std::size_t>(v * C + c)] + x;
        } else {
          const float before = head ? x : want_out[at - static_cast<std::size_t>(C)];
          want_out[at] = head ? x : kind == cumsum ? before + x : std::max(before, x);
        }
      }
    }
  }
  void poison(cudaStream_t stream) override {
    poison_async(out, stream);
    poison_async(unique, stream);
    poison_async(count, stream);
  }
  std::size_t wrong() const override {
    if (kind != sums) return count_differ(fetch(at(out), out.count - 1), want_out);
    const auto V = want_unique.size();
    const auto got_count = fetch(at(count), 1);
    auto got = fetch(at(out), out.count - 1);
    auto got_unique = fetch(at(unique), unique.count - 1);
    got.resize(V * static_cast<std::size_t>(C));
    got_unique.resize(V);
    std::vector<float> want(want_out.begin(), want_out.begin() + static_cast<std::ptrdiff_t>(V * static_cast<std::size_t>(C)));
    return count_differ(got, want) + count_differ(got_unique, want_unique) +
           (got_count.empty() || got_count[0] != static_cast<std::int64_t>(V));
  }
};

//! bev_pool from unsorted keys (some outside the grid), with or without a plan made in the same
//! call, voxel_sum, and bev_pool_backward.
struct bev_call : call {
  enum kind_t { pool, planned, voxel, backward } kind;
  std::int64_t S, C, cells;
  device_buffer<float> feats, grid, out;
  device_buffer<std::int32_t> keys;
  std::vector<float> want;
  bev_call(kind_t k, std::int64_t rows, std::int64_t cols, std::int64_t num_cells)
      : call(std::string(k == pool ? "bev_pool" : k == planned ? "bev_pool with a plan" : k == voxel ? "voxel_sum" : "bev_pool_backward") +
             " S=" + std::to_string(rows) + " C=" + std::to_string(cols)),
        kind(k), S(rows), C(cols), cells(num_cells), feats(static_cast<std::size_t>(S * C) + 1),
        grid(static_cast<std::size_t>(cells * C) + 1), out(static_cast<std::size_t>(S * C) + 1), keys(static_cast<std::size_t>(S) + 1) {}
  cudaError_t launch(void* temp, std::size_t& bytes, cudaStream_t stream) override {
    switch (kind) {
      case pool: return fastscan::bev_pool(temp, bytes, at(feats), at(keys), at(grid), S, C, cells, stream);
      case voxel: return fastscan::voxel_sum(temp, bytes, at(feats), at(keys), at(out), S, C, stream);
      case backward: return fastscan::bev_pool_backward(temp, bytes, at(grid), at(keys), at(out), S, C, cells, stream);
      default: return planned_pool(temp, bytes, stream);
    }
  }
  //! The plan and the pooling in one temp buffer: the plan's bytes first, then the pool's.
  cudaError_t planned_pool(void* temp, std::size_t& bytes, cudaStream_t stream) {
    fastscan::bev_pool_plan<std::int32_t> plan{nullptr, nullptr, S, cells};
    std::size_t plan_bytes = 0, pool_bytes = 0;
    cudaError_t err = fastscan::make_bev_pool_plan(nullptr, plan_bytes, at(keys), S, cells, plan, stream);
    if (err == cudaSuccess) err = fastscan::bev_pool(nullptr, pool_bytes, plan, at(feats), at(grid), C, stream);
    plan_bytes = (plan_bytes + 255) / 256 * 256;
    if (err != cudaSuccess || temp == nullptr) {
      bytes = plan_bytes + pool_bytes;
      return err;
    }
    err = fastscan::make_bev_pool_plan(temp, plan_bytes, at(keys), S, cells, plan, stream);
    return err == cudaSuccess ? fastscan::bev_pool(static_cast<unsigned char*>(temp) + plan_bytes, pool_bytes, plan, at(feats),
                                                   at(grid), C, stream)
                              : err;
  }
  void refill(std::uint64_t seed) override {
    const auto f = small_floats(static_cast<std::size_t>(S * C), seed);
    const auto g = small_floats(static_cast<std::size_t>(cells * C), seed + 2);
    std::mt19937_64 rng(seed + 1);
    std::vector<std::int32_t> k(static_cast<std::size_t>(S));
    for (auto& x : k) x = static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cells + 4)) - 2);
    upload(feats, f);
    upload(keys, k);
    if (kind == backward) upload(grid, g);
    std::vector<float> totals(static_cast<std::size_t>(cells * C), 0.f);
    for (std::int64_t i = 0; i < S; ++i) {
      const std::int64_t key = k[static_cast<std::size_t>(i)];
      if (key < 0 || key >= cells) continue;
      for (std::int64_t c = 0; c < C; ++c) totals[static_cast<std::size_t>(key * C + c)] += f[static_cast<std::size_t>(i * C + c)];
    }
    if (kind == pool || kind == planned) {
      want = totals;
      return;
    }
    want.assign(static_cast<std::size_t>(S * C), 0.f);
    for (std::int64_t i = 0; i < S; ++i) {
      const std::int64_t key = k[static_cast<std::size_t>(i)];
      const bool inside = key >= 0 && key < cells;
      for (std::int64_t c = 0; c < C; ++c) {
        const auto cell = static_cast<std::size_t>(key * C + c);
        // voxel_sum sums every key (no grid); the test's keys stay inside [-2, cells + 2).
        want[static_cast<std::size_t>(i * C + c)] =
            kind == backward ? (inside ? g[cell] : 0.f) : voxel_total(k, f, key, c);
      }
    }
  }
  float voxel_total(const std::vector<std::int32_t>& k, const host_array<float>& f, std::int64_t key, std::int64_t c) const {
    float t = 0;
    for (std::int64_t j = 0; j < S; ++j) t += k[static_cast<std::size_t>(j)] == key ? f[static_cast<std::size_t>(j * C + c)] : 0.f;
    return t;
  }
  void poison(cudaStream_t stream) override { kind == pool || kind == planned ? poison_async(grid, stream) : poison_async(out, stream); }
  std::size_t wrong() const override {
    return kind == pool || kind == planned ? count_differ(fetch(at(grid), grid.count - 1), want) : count_differ(fetch(at(out), out.count - 1), want);
  }
};

//! Every entry point once, on shapes that look back (long rows, long columns, segments across tiles).
std::vector<std::unique_ptr<call>> every_entry_point() {
  std::vector<std::unique_ptr<call>> calls;
  calls.push_back(std::make_unique<cummax_call>(fastscan::Shape3{1, 300007, 1}));
  calls.push_back(std::make_unique<cummax_call>(fastscan::Shape3{2, 40001, 24}));
  calls.push_back(std::make_unique<sum_call>(sum_call::inclusive, fastscan::Shape3{3, 100003, 1}));
  calls.push_back(std::make_unique<sum_call>(sum_call::exclusive, fastscan::Shape3{1, 65537, 7}));
  calls.push_back(std::make_unique<sum_call>(sum_call::generic_max, fastscan::Shape3{1, 200003, 2}));
  // One long row of int64: pipelined (a tail bulk copies cannot take whole), or rows when misaligned.
  calls.push_back(std::make_unique<sum_call>(sum_call::inclusive64, fastscan::Shape3{1, (std::int64_t{1} << 20) + 5, 1}));
  calls.push_back(std::make_unique<sum_call>(sum_call::exclusive64, fastscan::Shape3{1, 3000017, 1}));
  calls.push_back(std::make_unique<segmented_call>(segmented_call::cumsum, 50021, 5));
  calls.push_back(std::make_unique<segmented_call>(segmented_call::scan_max, 30011, 8));
  calls.push_back(std::make_unique<segmented_call>(segmented_call::sums, 40009, 16));
  calls.push_back(std::make_unique<bev_call>(bev_call::pool, 20011, 8, 3001));
  calls.push_back(std::make_unique<bev_call>(bev_call::planned, 20011, 8, 3001));
  calls.push_back(std::make_unique<bev_call>(bev_call::voxel, 3001, 4, 300));
  calls.push_back(std::make_unique<bev_call>(bev_call::backward, 20011, 8, 3001));
  return calls;
}

struct stream_guard {
  cudaStream_t s = nullptr;
  stream_guard() { CUDA_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_guard() { cudaStreamDestroy(s); }
};

}  // namespace

TEST_CASE("every entry point captured into a CUDA graph is right on 100 replays", "[gpu][graph]") {
  stream_guard stream;
  for (auto& c : every_entry_point()) {
    CAPTURE(c->name);
    std::size_t bytes = c->temp_bytes();
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(cudaMemset(temp.ptr, 0xff, bytes));
    cudaGraph_t graph;
    CUDA_REQUIRE(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
    const cudaError_t launched = c->launch(temp.ptr, bytes, stream.s);
    CUDA_REQUIRE(cudaStreamEndCapture(stream.s, &graph));
    CUDA_REQUIRE(launched);
    cudaGraphExec_t exec;
    CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
    std::size_t bad_replays = 0;
    for (std::uint64_t replay = 0; replay < 100; ++replay) {
      if (replay % 10 == 0) c->refill(1000 + replay);  // new inputs in place, same graph
      c->poison(stream.s);
      CUDA_REQUIRE(cudaGraphLaunch(exec, stream.s));
      CUDA_REQUIRE(cudaStreamSynchronize(stream.s));
      bad_replays += c->wrong() != 0;
    }
    CHECK(bad_replays == 0);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}

TEST_CASE("the self-allocating forms capture into a graph (stream-ordered allocation)", "[gpu][graph]") {
  stream_guard stream;
  const fastscan::Shape3 s{1, 300007, 3};
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const auto h = small_floats(n, 5);
  device_buffer<float> in(n), out(n);
  in.upload(h);
  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
  const cudaError_t launched = fastscan::cumsum(in.ptr, out.ptr, s, stream.s);
  CUDA_REQUIRE(cudaStreamEndCapture(stream.s, &graph));
  CUDA_REQUIRE(launched);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = (i / 3) % static_cast<std::size_t>(s.len) == 0 ? h[i] : want[i - 3] + h[i];
  for (int replay = 0; replay < 10; ++replay) {
    out.poison();
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream.s));
    CUDA_REQUIRE(cudaStreamSynchronize(stream.s));
    CHECK(count_differ(fetch(out.ptr, n), want) == 0);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_CASE("every entry point on its own stream, all at once, each with its own temp storage", "[gpu][stream]") {
  auto calls = every_entry_point();
  std::vector<std::unique_ptr<stream_guard>> streams;
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temps;
  for (auto& c : calls) {
    streams.push_back(std::make_unique<stream_guard>());
    temps.push_back(std::make_unique<device_buffer<unsigned char>>(c->temp_bytes()));
  }
  for (std::uint64_t round = 0; round < 3; ++round) {
    for (auto& c : calls) c->refill(200 + round);
    for (std::size_t i = 0; i < calls.size(); ++i) {  // enqueue everything before waiting for anything
      calls[i]->poison(streams[i]->s);
      std::size_t bytes = temps[i]->count;
      CUDA_REQUIRE(calls[i]->launch(temps[i]->ptr, bytes, streams[i]->s));
    }
    CUDA_REQUIRE(cudaDeviceSynchronize());
    for (auto& c : calls) {
      CAPTURE(round, c->name);
      CHECK(c->wrong() == 0);
    }
  }
}

TEST_CASE("one temp buffer serves every entry point back to back on one stream", "[gpu][stream]") {
  auto calls = every_entry_point();
  auto again = every_entry_point();  // a second instance of each, with other inputs, on the same temp
  std::size_t most = 0;
  for (auto& c : calls) most = std::max(most, c->temp_bytes());
  device_buffer<unsigned char> temp(most);
  stream_guard stream;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    calls[i]->refill(300);
    again[i]->refill(301);
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    for (call* c : {calls[i].get(), again[i].get()}) {
      c->poison(stream.s);
      std::size_t bytes = most;
      CUDA_REQUIRE(c->launch(temp.ptr, bytes, stream.s));
    }
  }
  CUDA_REQUIRE(cudaStreamSynchronize(stream.s));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CAPTURE(calls[i]->name);
    CHECK(calls[i]->wrong() == 0);
    CHECK(again[i]->wrong() == 0);
  }
}

//! `calls` cumsums enqueued back to back, each reading the output of the one before (two buffers in
//! turn): a kernel that started before its predecessor's writes were visible (stream_order.cuh)
//! would read the older buffer. Unsigned sums wrap, so any order of additions gives the host's bits.
template <class T>
void check_chain(fastscan::Shape3 shape, int calls, std::uint64_t seed) {
  const std::size_t n = static_cast<std::size_t>(shape.outer * shape.len * shape.inner);
  std::mt19937_64 rng(seed);
  host_array<T> want(n);
  for (auto& x : want) x = static_cast<T>(rng() % 5);
  device_buffer<T> a(n), b(n);
  a.upload(want);
  b.poison();
  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::cumsum(nullptr, bytes, a.ptr, b.ptr, shape, nullptr));
  device_buffer<unsigned char> temp(bytes);
  stream_guard stream;
  for (int k = 0; k < calls; ++k) {
    const T* in = k % 2 == 0 ? a.ptr : b.ptr;
    T* out = k % 2 == 0 ? b.ptr : a.ptr;
    CUDA_REQUIRE(fastscan::cumsum(temp.ptr, bytes, in, out, shape, stream.s));
  }
  CUDA_REQUIRE(cudaStreamSynchronize(stream.s));
  for (int k = 0; k < calls; ++k) {
    for (std::int64_t o = 0; o < shape.outer; ++o) {
      for (std::int64_t i = 0; i < shape.inner; ++i) {
        T run = 0;
        for (std::int64_t l = 0; l < shape.len; ++l) {
          T& x = want[static_cast<std::size_t>((o * shape.len + l) * shape.inner + i)];
          run = static_cast<T>(run + x);
          x = run;
        }
      }
    }
  }
  const host_array<T> got = (calls % 2 == 0 ? a : b).download();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += got[i] != want[i];
  CHECK(bad == 0);
}

TEST_CASE("each call of a back-to-back chain reads the output of the one before", "[gpu][stream]") {
  using fastscan::Shape3;
  for (const Shape3 shape : {Shape3{1, 16384, 1}, Shape3{1, 65536, 1}, Shape3{7, 1000, 1}, Shape3{3, 4096, 33},
                             Shape3{1, 2097152, 1}}) {
    CAPTURE(shape.outer, shape.len, shape.inner);
    check_chain<std::uint32_t>(shape, 101, 900);
  }
  check_chain<std::uint64_t>(fastscan::Shape3{1, (std::int64_t{1} << 25) + 3, 1}, 5, 901);
}

TEST_CASE("a host thread's first CUDA call may be a scan on the default stream", "[gpu][stream]") {
  // No context is current in a new host thread until the runtime binds one: the launch must still
  // run there (and again once one is current), for a one-tile plan and a look-back plan.
  for (const std::int64_t len : {std::int64_t{1000}, std::int64_t{1} << 20}) {
    CAPTURE(len);
    const std::size_t n = static_cast<std::size_t>(len);
    std::vector<std::uint32_t> in(n), want(n);
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) want[i] = run += in[i] = static_cast<std::uint32_t>(i * 2654435761u >> 28);
    device_buffer<std::uint32_t> a(n), b(n), c(n);
    a.upload(in);
    b.poison();
    c.poison();
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::cumsum(nullptr, bytes, a.ptr, b.ptr, fastscan::Shape3{1, len, 1}, nullptr));
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    cudaError_t first = cudaErrorUnknown, second = cudaErrorUnknown, synced = cudaErrorUnknown;
    std::thread([&] {
      first = fastscan::cumsum(temp.ptr, bytes, a.ptr, b.ptr, fastscan::Shape3{1, len, 1}, nullptr);
      second = fastscan::cumsum(temp.ptr, bytes, a.ptr, c.ptr, fastscan::Shape3{1, len, 1}, nullptr);
      synced = cudaStreamSynchronize(nullptr);
    }).join();
    CHECK(first == cudaSuccess);
    CHECK(second == cudaSuccess);
    CHECK(synced == cudaSuccess);
    CHECK(count_differ(fetch(b.ptr, n), want) == 0);
    CHECK(count_differ(fetch(c.ptr, n), want) == 0);
  }
}

TEST_CASE("host threads call fastscan at once, each on its own stream", "[gpu][stream]") {
  constexpr int threads = 4;
  std::vector<std::vector<std::unique_ptr<call>>> work;
  for (int t = 0; t < threads; ++t) {
    work.push_back(every_entry_point());
    for (auto& c : work.back()) c->refill(400 + static_cast<std::uint64_t>(t));
  }
  std::atomic<std::size_t> wrong{0}, errors{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaStream_t stream;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        ++errors;
        return;
      }
      for (int rep = 0; rep < 5; ++rep) {
        for (auto& c : work[static_cast<std::size_t>(t)]) {
          std::size_t bytes = 0;
          void* temp = nullptr;
          // Sizes, allocation and the call from this thread; poison first so stale outputs show.
          if (c->launch(nullptr, bytes, stream) != cudaSuccess || cudaMallocAsync(&temp, bytes, stream) != cudaSuccess ||
              cudaMemsetAsync(temp, 0xff, bytes, stream) != cudaSuccess) {
            ++errors;
            continue;
          }
          errors += c->launch(temp, bytes, stream) != cudaSuccess;
          errors += cudaFreeAsync(temp, stream) != cudaSuccess;
          errors += cudaStreamSynchronize(stream) != cudaSuccess;
          wrong += c->wrong();
        }
      }
      cudaStreamDestroy(stream);
    });
  }
  for (auto& th : pool) th.join();
  CHECK(errors == 0);
  CHECK(wrong == 0);
}

namespace {

//! Holds one SM per block until the host sets release[block]: the block asks for more shared
//! memory than half an SM has, so no other block (of any kernel that uses shared memory) fits there.
__global__ void hold_sm(volatile int* release, unsigned* started) {
  extern __shared__ unsigned char held[];
  if (threadIdx.x == 0) {
    held[0] = 1;
    atomicAdd(started, 1u);
    while (release[blockIdx.x] == 0) __nanosleep(10000);
  }
}

struct sm_holder {
  int blocks;
  int* release = nullptr;
  unsigned* started = nullptr;
  stream_guard stream;
  explicit sm_holder(int n) : blocks(n) {
    CUDA_REQUIRE(cudaHostAlloc(&release, sizeof(int) * static_cast<std::size_t>(n), cudaHostAllocMapped));
    CUDA_REQUIRE(cudaHostAlloc(&started, sizeof(unsigned), cudaHostAllocMapped));
    std::fill(release, release + n, 0);
    *started = 0;
    int smem = 0, device = 0;
    CUDA_REQUIRE(cudaGetDevice(&device));
    CUDA_REQUIRE(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_REQUIRE(cudaFuncSetAttribute(hold_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int* d_release;
    unsigned* d_started;
    CUDA_REQUIRE(cudaHostGetDevicePointer(&d_release, release, 0));
    CUDA_REQUIRE(cudaHostGetDevicePointer(&d_started, started, 0));
    hold_sm<<<n, 32, static_cast<std::size_t>(smem), stream.s>>>(d_release, d_started);
    CUDA_REQUIRE(cudaGetLastError());
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (*static_cast<volatile unsigned*>(started) < static_cast<unsigned>(n) && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
    REQUIRE(*static_cast<volatile unsigned*>(started) == static_cast<unsigned>(n));  // every SM it asked for is held
  }
  void release_block(int b) { static_cast<volatile int*>(release)[b] = 1; }
  ~sm_holder() {
    for (int b = 0; b < blocks; ++b) release_block(b);
    cudaStreamSynchronize(stream.s);
    cudaFreeHost(release);
    cudaFreeHost(started);
  }
};

//! Waits for `stream` up to `seconds`; false if its work has not finished by then.
bool finishes(cudaStream_t stream, int seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return cudaStreamQuery(stream) == cudaSuccess;
}

//! Look-back scans whose blocks wait on tiles of blocks not yet started when few SMs are free: grids
//! of many waves, and one of a single wave ([1, 2^14, 64] cummax, 128 tiles).
std::vector<std::unique_ptr<call>> long_scans() {
  std::vector<std::unique_ptr<call>> calls;
  // (a few MB each: one SM, shared with whatever else runs, streams them in seconds)
  calls.push_back(std::make_unique<cummax_call>(fastscan::Shape3{1, std::int64_t{1} << 20, 1}));
  calls.push_back(std::make_unique<cummax_call>(fastscan::Shape3{1, std::int64_t{1} << 14, 64}));
  calls.push_back(std::make_unique<sum_call>(sum_call::inclusive, fastscan::Shape3{1, std::int64_t{1} << 19, 3}));
  calls.push_back(std::make_unique<sum_call>(sum_call::inclusive64, fastscan::Shape3{1, std::int64_t{1} << 21, 1}));  // pipelined
  calls.push_back(std::make_unique<segmented_call>(segmented_call::cumsum, std::int64_t{1} << 16, 16));
  return calls;
}

//! The long scans with fresh inputs and their temp storage, allocated before any SM holder starts
//! (allocating or freeing may wait for the device), launched on one stream by `launch`.
struct progress_work {
  int sms = 0;
  std::vector<std::unique_ptr<call>> calls = long_scans();
  std::vector<std::unique_ptr<device_buffer<unsigned char>>> temps;
  stream_guard stream;
  explicit progress_work(std::uint64_t seed) {
    int device = 0;
    CUDA_REQUIRE(cudaGetDevice(&device));
    CUDA_REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    for (auto& c : calls) {
      c->refill(seed);
      temps.push_back(std::make_unique<device_buffer<unsigned char>>(c->temp_bytes()));
    }
    // One call of each first: CUDA loads a kernel at its first launch (lazy loading), and loading
    // may wait for the kernels beside it to end, here a holder that ends only when the test says.
    launch();
    CUDA_REQUIRE(cudaStreamSynchronize(stream.s));
  }
  void launch_one(std::size_t i) {
    calls[i]->poison(stream.s);
    std::size_t bytes = temps[i]->count;
    CUDA_REQUIRE(calls[i]->launch(temps[i]->ptr, bytes, stream.s));
  }
  void launch() {
    for (std::size_t i = 0; i < calls.size(); ++i) launch_one(i);
  }
};

}  // namespace

TEST_CASE("look-back scans finish while another kernel holds all but a few SMs", "[gpu][progress]") {
  progress_work work(500);
  for (const int free_sms : {1, 4}) {
    for (std::size_t i = 0; i < work.calls.size(); ++i) {
      // one scan at a time, so a stall names its scan
      CAPTURE(free_sms, work.calls[i]->name);
      sm_holder holder(work.sms - free_sms);
      work.launch_one(i);
      const bool done = finishes(work.stream.s, 60);
      CHECK(done);
      if (!done) return;  // (the holder's release lets a hung scan go on; its results are not checked)
      CHECK(work.calls[i]->wrong() == 0);
    }
  }
}

TEST_CASE("scans launched while the GPU is full start on the SMs as they free up", "[gpu][progress]") {
  progress_work work(600);
  auto& calls = work.calls;
  auto& stream = work.stream;
  const int sms = work.sms;
  sm_holder holder(sms);
  work.launch();
  // Nothing can run yet; then one SM more every millisecond (MPS-like partial occupancy).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(cudaStreamQuery(stream.s) == cudaErrorNotReady);
  for (int b = 0; b < sms; ++b) {
    holder.release_block(b);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool done = finishes(stream.s, 60);
  CHECK(done);
  if (!done) return;
  for (auto& c : calls) {
    CAPTURE(c->name);
    CHECK(c->wrong() == 0);
  }
}

TEST_CASE("every entry point on arrays one element past an aligned address", "[gpu][pointers]") {
  // Rows of 16-byte vector loads start misaligned: the kernels peel or fall back, never fault.
  for (auto& c : every_entry_point()) {
    CAPTURE(c->name);
    c->off = 1;
    c->refill(700);
    c->poison(nullptr);
    std::size_t bytes = c->temp_bytes();
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(c->launch(temp.ptr, bytes, nullptr));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(c->wrong() == 0);
  }
}

namespace {

//! The bytes of a buffer, to show that a rejected call wrote nothing.
template <class T>
std::vector<unsigned char> bytes_of(const device_buffer<T>& b) {
  std::vector<unsigned char> h(b.count * sizeof(T));
  CUDA_REQUIRE(cudaMemcpy(h.data(), b.ptr, h.size(), cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

TEST_CASE("exact in-place calls scan in place", "[gpu][pointers]") {
  const fastscan::Shape3 s{2, 70001, 3};
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const auto h = small_floats(n, 800, 101);
  host_array<float> want_v;
  std::vector<std::int64_t> want_i;
  reference_extreme(h, want_v, want_i, s, false, false);
  device_buffer<float> buf(n);
  device_buffer<std::int64_t> idx(n);
  buf.upload(h);
  CUDA_REQUIRE(fastscan::cummax(buf.ptr, buf.ptr, idx.ptr, s));
  CHECK(count_differ(fetch(buf.ptr, n), want_v.to_vector()) == 0);
  CHECK(count_differ(fetch(idx.ptr, n), want_i) == 0);

  // cumsum, exclusive_cumsum and inclusive_scan of int32, and segmented_cumsum of float rows.
  const auto hi = random_values<std::int32_t>(n, 801);
  device_buffer<std::int32_t> ibuf(n);
  for (int form = 0; form < 3; ++form) {
    CAPTURE(form);
    ibuf.upload(hi);
    std::vector<std::int32_t> want(n);
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t c = 0; c < s.inner; ++c) {
        std::uint32_t run = 0;  // integer sums wrap in the output type
        std::int32_t best = 0;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
          const std::int32_t x = hi[at];
          best = i == 0 ? x : std::max(best, x);
          want[at] = form == 2 ? best : static_cast<std::int32_t>(form == 0 ? run + static_cast<std::uint32_t>(x) : run);
          run += static_cast<std::uint32_t>(x);
        }
      }
    }
    const cudaError_t err = form == 0   ? fastscan::cumsum(ibuf.ptr, ibuf.ptr, s)
                            : form == 1 ? fastscan::exclusive_cumsum(ibuf.ptr, ibuf.ptr, s)
                                        : fastscan::inclusive_scan(ibuf.ptr, ibuf.ptr, max_int{}, s);
    CUDA_REQUIRE(err);
    CHECK(count_differ(fetch(ibuf.ptr, n), want) == 0);
  }
  segmented_call seg(segmented_call::cumsum, 50021, 5);
  seg.refill(802);
  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::segmented_cumsum(nullptr, bytes, seg.feats.ptr, seg.keys.ptr, seg.feats.ptr, seg.S, seg.C));
  device_buffer<unsigned char> temp(bytes);
  CUDA_REQUIRE(fastscan::segmented_cumsum(temp.ptr, bytes, seg.feats.ptr, seg.keys.ptr, seg.feats.ptr, seg.S, seg.C));
  CHECK(count_differ(fetch(seg.feats.ptr, seg.want_out.size()), seg.want_out) == 0);
}

TEST_CASE("overlapping arrays and misaligned temp storage are rejected and nothing is written", "[gpu][pointers]") {
  const fastscan::Shape3 s{1, 100003, 1};
  const std::int64_t n = s.len;
  device_buffer<float> a(static_cast<std::size_t>(n) * 2 + 64);
  device_buffer<std::int64_t> idx(static_cast<std::size_t>(n) * 2);
  device_buffer<std::int32_t> keys(static_cast<std::size_t>(n) * 2);
  device_buffer<std::int64_t> count(1);
  device_buffer<unsigned char> temp(std::size_t{64} << 20);
  a.upload(small_floats(a.count, 900));
  keys.upload(sorted_keys(static_cast<std::int64_t>(keys.count), 901, 8));
  idx.poison();
  count.poison();
  const auto before_a = bytes_of(a), before_idx = bytes_of(idx), before_count = bytes_of(count);
  std::size_t big = temp.count;
  unsigned char* const odd_temp = temp.ptr + 8;
  float* const x = a.ptr;
  const std::int64_t S = 1000, C = 7;
  // Each rejected call, and why; the overlaps are of one element or of one byte.
  const std::vector<std::pair<const char*, cudaError_t>> rejected = {
      {"cummax: values one element into the input", fastscan::cummax(temp.ptr, big, x, x + 1, idx.ptr, s)},
      {"cummax: indices over the values", fastscan::cummax(temp.ptr, big, x, x + n, reinterpret_cast<std::int64_t*>(x + n + 2), s)},
      {"cummax: indices over the input", fastscan::cummax(temp.ptr, big, reinterpret_cast<const float*>(idx.ptr + 3), x, idx.ptr, s)},
      {"cumsum: output one element into the input", fastscan::cumsum(temp.ptr, big, x + 1, x, s)},
      {"cumsum: in place into a wider type", fastscan::cumsum(temp.ptr, big, reinterpret_cast<const std::int32_t*>(x), reinterpret_cast<std::int64_t*>(x), s)},
      {"exclusive_cumsum: one byte of overlap", fastscan::exclusive_cumsum(temp.ptr, big, x, reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(x + n) - 1) , s)},
      {"inclusive_scan: output one element into the input", fastscan::inclusive_scan(temp.ptr, big, x, x + 1, max_float{}, s)},
      {"segmented_cumsum: output one row into the features", fastscan::segmented_cumsum(temp.ptr, big, x, keys.ptr, x + C, S, C)},
      {"segmented_cumsum: output over the keys", fastscan::segmented_cumsum(temp.ptr, big, x, keys.ptr, reinterpret_cast<float*>(keys.ptr), S, C)},
      {"segment_sum: sums over the features", fastscan::segment_sum(temp.ptr, big, x, keys.ptr, keys.ptr + 2 * S, x + S * C - 1, count.ptr, S, C)},
      {"segment_sum: unique keys over the keys", fastscan::segment_sum(temp.ptr, big, x, keys.ptr, keys.ptr + S - 1, x + 2 * S * C, count.ptr, S, C)},
      {"bev_pool: grid over the features", fastscan::bev_pool(temp.ptr, big, x, keys.ptr, x + S * C - 1, S, C, std::int64_t{50})},
      {"voxel_sum: in place", fastscan::voxel_sum(temp.ptr, big, x, keys.ptr, x, S, C)},
      {"bev_pool_backward: gradient over the grid", fastscan::bev_pool_backward(temp.ptr, big, x, keys.ptr, x + 10, S, C, std::int64_t{50})},
      {"cummax: temp storage 8 bytes off", fastscan::cummax(odd_temp, big, x, x + n, idx.ptr, s)},
      {"cumsum: temp storage 8 bytes off", fastscan::cumsum(odd_temp, big, x, x + n, s)},
      {"segmented_cumsum: temp storage 8 bytes off", fastscan::segmented_cumsum(odd_temp, big, x, keys.ptr, x + n, S, C)},
      {"segment_sum: temp storage 8 bytes off", fastscan::segment_sum(odd_temp, big, x, keys.ptr, keys.ptr + n, x + n, count.ptr, S, C)},
      {"bev_pool: temp storage 8 bytes off", fastscan::bev_pool(odd_temp, big, x, keys.ptr, x + n, S, C, std::int64_t{50})},
      {"voxel_sum: temp storage 8 bytes off", fastscan::voxel_sum(odd_temp, big, x, keys.ptr, x + n, S, C)},
  };
  CUDA_REQUIRE(cudaDeviceSynchronize());
  for (const auto& [why, err] : rejected) {
    CAPTURE(why);
    CHECK(err == cudaErrorInvalidValue);
  }
  CHECK(bytes_of(a) == before_a);
  CHECK(bytes_of(idx) == before_idx);
  CHECK(bytes_of(count) == before_count);
  // And the same arrays apart are accepted: the checks reject overlap, not these pointers.
  CUDA_REQUIRE(fastscan::cummax(temp.ptr, big, x, x + n, idx.ptr, s));
  CUDA_REQUIRE(fastscan::segment_sum(temp.ptr, big, x, keys.ptr, keys.ptr + n, x + n, count.ptr, S, C));
  CUDA_REQUIRE(cudaDeviceSynchronize());
}
