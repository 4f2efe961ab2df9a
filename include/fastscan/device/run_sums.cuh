//! \file run_sums.cuh
//! Sums of runs of equal keys over [S, C] rows (segment sums, BEV pooling). A reduction needs no
//! scan network: each thread sums one 16-byte group of columns down a range of rows, in row
//! order, and writes every run that ends inside its range. A run that crosses ranges is finished
//! by the thread that holds its head, which adds the following ranges' leading partial sums in
//! order (run_tails_kernel). The ranges depend only on S and C (plan::run_sum_rows), so every sum
//! is grouped the same way on every run and every GPU.
#pragma once

#include <fastscan/detail/numeric.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/stream_order.cuh>
#include <fastscan/ops/segmented.cuh>

#include <cstdint>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Where each range's partial sums wait for the thread that finishes their run: per range and
//! column, the sum of the rows before its first head (`lead`, the whole range when it has none)
//! and of its last run (`tail`, when that run goes on past the range); per range, the head row of
//! that pending last run (-1 when the range's last run ended in it) and its heads (range_heads).
template <class Acc>
struct run_partials {
  Acc* lead;
  Acc* tail;
  std::int64_t* tail_head;
  unsigned char* heads;
};

//! A range's heads: whether it holds one, and whether its first row is one (then it has no lead).
enum range_heads : unsigned char { range_has_head = 1, range_starts_with_head = 2 };

//! The rows and the ranges of a run-sum pass: `rows` (feature_rows) maps row r to the feature row
//! it reads, `to` says where the run headed at row h goes (runs_to_numbers, runs_to_cells).
template <class Rows, class Key, class To, class Acc>
struct run_sum_pass {
  Rows rows;
  const Key* keys;
  To to;
  Acc* out;                  //!< [destinations, C]
  run_partials<Acc> parts;
  std::int64_t S, C;
  std::int64_t range_rows;   //!< rows per range
  std::int64_t ranges;
  std::int64_t groups;       //!< column groups of V columns
};

//! A thread's share of a run-sum pass: one column group (`col`, `n` columns) of one range (`r`).
struct run_sum_part {
  std::int64_t r, col;
  int n;
  template <int V, class Pass>
  static FASTSCAN_DEVICE bool of_thread(const Pass& pass, run_sum_part& part) {
    const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
    if (t >= pass.ranges * pass.groups) {
      return false;
    }
    part.r = t / pass.groups;
    part.col = (t - part.r * pass.groups) * V;
    part.n = static_cast<int>(pass.C - part.col < V ? pass.C - part.col : V);
    return true;
  }
};

//! One thread's range in named stages: load a batch of rows, fold it in row order (writing each
//! run that ends), then leave the range's lead, tail and heads for run_tails_kernel.
template <class Policy, int V, class T, class Pass>
struct run_sum_range {
  using Acc = std::remove_pointer_t<decltype(Pass::out)>;
  using key_t = std::remove_cv_t<std::remove_reference_t<decltype(*Pass::keys)>>;
  static constexpr int U = Policy::batch;
  const Pass& pass;
  run_sum_part part;
  std::int64_t row0, row1;
  Acc acc[V] = {};
  key_t previous;
  std::int64_t head = -1;  //!< the head row of the run being summed (-1: still the range's lead)
  key_t keys[U];
  T x[U][V];

  FASTSCAN_DEVICE run_sum_range(const Pass& p, run_sum_part q) : pass(p), part(q) {
    row0 = part.r * pass.range_rows;
    row1 = row0 + pass.range_rows < pass.S ? row0 + pass.range_rows : pass.S;
    previous = row0 > 0 ? __ldg(pass.keys + row0 - 1) : key_t{};
  }
  FASTSCAN_DEVICE Acc* partial(Acc* base) const { return base + part.r * pass.C + part.col; }

  //! A batch's keys and rows, each row's loads issued right after its key's: reading every key
  //! and row index of the batch first was 1.6 - 1.9x slower (bench/NOTES.md item 6).
  FASTSCAN_DEVICE void load(std::int64_t first) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (first + u < row1) {
        keys[u] = __ldg(pass.keys + first + u);
        load_plain_run<V>(pass.rows.feats + pass.rows.index(first + u) * pass.C + part.col, x[u], part.n);
      }
    }
  }
  //! Row `row` (batch slot u): a head writes the run before it (or the range's lead) and restarts.
  FASTSCAN_DEVICE void fold(std::int64_t row, int u) {
    const bool starts = key_starts_segment(keys[u], previous, row == 0);
    previous = keys[u];
    if (starts) {
      if (head >= 0) {
        pass.to.write(pass.out, pass.C, head, part.col, acc, part.n);
      } else if (row > row0) {
        store_plain_run<V>(partial(pass.parts.lead), acc, part.n);
      }
      head = row;
    }
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const Acc a = convert_to<Acc>(x[u][v]);
      acc[v] = starts ? a : acc[v] + a;
    }
  }
  //! The range's last run: written when it ends here, else left as the tail for its head's thread.
  FASTSCAN_DEVICE void finish() {
    const bool any_head = head >= 0;
    if (!any_head) {
      store_plain_run<V>(partial(pass.parts.lead), acc, part.n);
    } else if (row1 == pass.S || !(__ldg(pass.keys + row1) == previous)) {
      pass.to.write(pass.out, pass.C, head, part.col, acc, part.n);
      head = -1;
    } else {
      store_plain_run<V>(partial(pass.parts.tail), acc, part.n);
    }
    if (part.col == 0) {
      record_heads(any_head);
    }
  }
  //! The range's tail head and head flags, for the tails pass.
  FASTSCAN_DEVICE void record_heads(bool any_head) {
    pass.parts.tail_head[part.r] = head;
    const bool first_is_head =
        row0 < row1 && key_starts_segment(__ldg(pass.keys + row0), row0 > 0 ? __ldg(pass.keys + row0 - 1) : key_t{}, row0 == 0);
    pass.parts.heads[part.r] =
        static_cast<unsigned char>((any_head ? range_has_head : 0) | (first_is_head ? range_starts_with_head : 0));
  }
  FASTSCAN_DEVICE void run() {
    for (std::int64_t first = row0; first < row1; first += U) {
      load(first);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (first + u < row1) fold(first + u, u);
      }
    }
    finish();
  }
};

//! Each thread: one column group down one range of rows. Policy: batch, threads, min_blocks
//! (plan/kernel_policy.hpp).
FASTSCAN_KERNELS_BEGIN
template <class Policy, int V, class T, class Pass>
FASTSCAN_KERNEL __launch_bounds__(Policy::threads, Policy::min_blocks) void run_sums_kernel(Pass pass) {
  enter_stream_order();
  run_sum_part part;
  if (run_sum_part::of_thread<V>(pass, part)) {
    run_sum_range<Policy, V, T, Pass>(pass, part).run();
  }
}
FASTSCAN_KERNELS_END

//! Finishes each pending run: its tail, then the leads of the ranges after it up to the first
//! that holds a head (the run ends there, or just before it when it starts with one), in order.
FASTSCAN_KERNELS_BEGIN
template <int V, class Pass>
FASTSCAN_KERNEL void run_tails_kernel(Pass pass) {
  enter_stream_order();
  using Acc = std::remove_pointer_t<decltype(pass.out)>;
  run_sum_part part;
  if (!run_sum_part::of_thread<V>(pass, part)) {
    return;
  }
  const std::int64_t head = pass.parts.tail_head[part.r];
  if (head < 0) {
    return;
  }
  Acc acc[V];
  Acc more[V];
  load_plain_run<V>(pass.parts.tail + part.r * pass.C + part.col, acc, part.n);
  for (std::int64_t k = part.r + 1; k < pass.ranges; ++k) {
    const unsigned heads = pass.parts.heads[k];
    if (heads & range_starts_with_head) {
      break;  // (the run ended with the range before)
    }
    load_plain_run<V>(pass.parts.lead + k * pass.C + part.col, more, part.n);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      acc[v] = acc[v] + more[v];
    }
    if (heads & range_has_head) {
      break;
    }
  }
  pass.to.write(pass.out, pass.C, head, part.col, acc, part.n);
}
FASTSCAN_KERNELS_END

//! Runs into the rows of a dense grid by key; keys outside [0, cells) are dropped.
template <class Key>
struct runs_to_cells {
  const Key* keys;
  std::int64_t cells;
  template <int V, class Acc>
  FASTSCAN_DEVICE void write(Acc* out, std::int64_t C, std::int64_t head, std::int64_t col, const Acc (&acc)[V], int n) const {
    const Key key = __ldg(keys + head);
    if (key >= 0 && static_cast<std::int64_t>(key) < cells) {
      store_plain_run<V>(out + static_cast<std::int64_t>(key) * C + col, acc, n);
    }
  }
};

//! Runs numbered by `numbers` (the inclusive count of heads at each row): run v goes to row v - 1,
//! and its key to unique_keys[v - 1] when unique_keys is given; runs past the output's `rows` are
//! dropped.
template <class Key>
struct runs_to_numbers {
  const Key* keys;
  const std::int64_t* numbers;
  Key* unique_keys;
  std::int64_t rows;
  template <int V, class Acc>
  FASTSCAN_DEVICE void write(Acc* out, std::int64_t C, std::int64_t head, std::int64_t col, const Acc (&acc)[V], int n) const {
    const std::int64_t v = __ldg(numbers + head) - 1;
    if (v >= rows) {
      return;
    }
    if (col == 0 && unique_keys != nullptr) {
      unique_keys[v] = __ldg(keys + head);
    }
    store_plain_run<V>(out + v * C + col, acc, n);
  }
};

//! Row r of [S, C] features, in place or through a permutation (rows sorted by key).
template <class T>
struct feature_rows {
  const T* feats;
  const std::int64_t* perm;  //!< null: row r is feats' row r
  std::int64_t C;
  //! The feature row that row r of the sorted order reads.
  FASTSCAN_DEVICE std::int64_t index(std::int64_t r) const { return perm ? __ldg(perm + r) : r; }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
