//! \file column_scan.cuh
//! The column kernel: scans along a strided axis ([outer, len, inner] with inner > 1) in one pass.
//!
//! A tile is `tile_rows` positions along len by `tile_cols` contiguous columns of one outer slice:
//! lanes_x threads across the columns (VEC columns each, so a warp reads whole 16-byte vectors of a
//! row) and lanes_y threads down the rows (`items` rows each, at most ITEMS). Each column is
//! scanned down the tile by shuffles between the thread rows of a warp and a fold over the warp
//! rows in shared memory (two barriers), and tiles further down the same columns look back through
//! the tile state with one channel per column (every warp looks back for its share of the tile's
//! columns at once).
//! Tile ids run len-tile-major, so a tile's predecessor was issued a whole round of
//! (outer x column-chunk) tiles earlier and is usually complete when it is needed.
//! Rows narrower than the tile (tile_cols > inner: 3 floats against 4 columns) run in a kernel of
//! their own (Odd), whose warps stage their whole rows word by word (column_odd_row_parts).
#pragma once

#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/problems.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/tile_state.cuh>
#include <fastscan/plan/policy.hpp>
#include <fastscan/warp/warp_exchange.cuh>
#include <fastscan/warp/warp_scan.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct column_scan_params {
  std::int64_t outer, len, inner;
  std::int64_t tile_rows;   //!< lanes_y * items
  std::int64_t tile_cols;   //!< lanes_x * VEC
  std::int64_t col_chunks;  //!< ceil(inner / tile_cols)
  std::int64_t chains;      //!< outer * col_chunks: tiles per len-tile round
  std::int64_t num_tiles;
  divisor by_chains, by_chunks;  //!< chains and col_chunks as divisors
  int lanes_x, lanes_y;     //!< powers of two
  bool lookback;  //!< len spans more than one tile
  unsigned long long* tile_counter;  //!< zeroed tile counter, or null: tile = block index
  void* tile_words;                  //!< tile state (tile_state<Acc>, a channel per column)
  void* group_words;                 //!< the tile groups' state of ordered look-backs (else null)
  unsigned long long tag;            //!< the call's tile-state tag (0: state zeroed)
  std::int64_t prefetch_tiles;       //!< L2 prefetch distance in tiles (0: none)
  int items;  //!< rows per thread: a power of two, at most the kernel's ITEMS
  unsigned first_poll_ns;  //!< plan::first_poll_ns
};

FASTSCAN_HD constexpr std::size_t smem_align16(std::size_t v) { return (v + 15) / 16 * 16; }

//! Warp rows of a column tile: a warp holds 32 / lanes_x thread rows when lanes_x < 32, else one.
FASTSCAN_HD constexpr int column_warp_rows(int lanes_x, int lanes_y) {
  return lanes_x >= 32 ? lanes_y : lanes_y * lanes_x / 32;
}

//! Shared memory of the column kernel: the column totals of each warp row [warp_rows][tile_cols],
//! then per column the tile total (later the prefix from the look-back) and a has-prefix flag; the
//! warps' exchange slices follow at this offset. plan.hpp sizes the same layout from byte counts.
template <class Acc>
FASTSCAN_HD std::size_t column_scan_exchange_offset(int lanes_x, int lanes_y, int tile_cols) {
  const auto cols = static_cast<std::size_t>(tile_cols);
  return smem_align16(static_cast<std::size_t>(column_warp_rows(lanes_x, lanes_y)) * cols * sizeof(Acc)) +
         smem_align16(cols * sizeof(Acc)) + smem_align16(cols);
}

//! Whether a thread's rows are whole 16-byte units (one per row) kept in its exchange row.
template <class T, int ITEMS, int VEC>
constexpr bool column_unit_rows = VEC * sizeof(T) == 16 && ITEMS <= exchange_units_max;

//! A warp's exchange slice: unit rows of ITEMS units when the rows are units.
template <class T, int ITEMS, int VEC>
FASTSCAN_HD constexpr std::size_t column_slice_bytes() {
  return column_unit_rows<T, ITEMS, VEC> ? unit_slice_bytes(ITEMS) : warp_exchange_bytes();
}

//! Where one thread's part of a column tile lies.
struct column_tile_part {
  std::int64_t k;          //!< tile index along len
  std::int64_t row0;       //!< first row (along len) of the thread
  std::int64_t base;       //!< element offset of the thread's first item
  std::int64_t warp_base;  //!< element offset of the warp's run when warp_rows
  int tx, ty, nrows, ncols;
  bool warp_rows;          //!< the warp's rows are whole rows of the plane (the tile spans every
                           //!< column) and in range: one contiguous run
  bool warp_full;          //!< warp_rows, and the rows exactly as wide as the tile
};

template <int ITEMS, int VEC>
FASTSCAN_DEVICE column_tile_part column_part(const column_scan_params& p, std::int64_t tile) {
  const int tid = static_cast<int>(threadIdx.x);
  column_tile_part t;
  const int lx = log2_pow2(p.lanes_x);
  t.k = p.by_chains.div(tile);
  const std::int64_t chain = tile - t.k * p.chains;
  const std::int64_t o = p.by_chunks.div(chain);
  const std::int64_t chunk = chain - o * p.col_chunks;
  t.tx = tid & (p.lanes_x - 1);
  t.ty = tid >> lx;
  const std::int64_t col0 = chunk * p.tile_cols + static_cast<std::int64_t>(t.tx) * VEC;
  t.row0 = t.k * p.tile_rows + static_cast<std::int64_t>(t.ty) * p.items;
  const std::int64_t rows_left = p.len - t.row0;
  t.nrows = rows_left <= 0 ? 0 : (rows_left >= p.items ? p.items : static_cast<int>(rows_left));
  const std::int64_t cols_left = p.inner - col0;
  t.ncols = cols_left <= 0 ? 0 : (cols_left >= VEC ? VEC : static_cast<int>(cols_left));
  t.base = (o * p.len + t.row0) * p.inner + col0;
  const int warp_ty0 = (tid & ~31) >> lx;
  const std::int64_t warp_row0 = t.k * p.tile_rows + static_cast<std::int64_t>(warp_ty0) * p.items;
  t.warp_rows = p.items == ITEMS && p.col_chunks == 1 && p.lanes_x <= 32 && warp_row0 + (32 >> lx) * ITEMS <= p.len;
  t.warp_full = t.warp_rows && p.tile_cols == p.inner;
  t.warp_base = (o * p.len + warp_row0) * p.inner;
  return t;
}

//! The calling warp's exchange slice.
template <class Acc, class T, int ITEMS, int VEC>
FASTSCAN_DEVICE uint4* column_exchange(const column_scan_params& p, unsigned char* smem) {
  return reinterpret_cast<uint4*>(smem + column_scan_exchange_offset<Acc>(p.lanes_x, p.lanes_y, static_cast<int>(p.tile_cols))) +
         static_cast<int>(threadIdx.x >> 5) * static_cast<int>(column_slice_bytes<T, ITEMS, VEC>() / 16);
}

//! Side outputs (the indices of cummax) of a warp whose rows are one contiguous run with one thread
//! across each row: each index is kept as a 4-bit code, the row within the thread it was taken at
//! (the running extreme's position is always one of the thread's rows or the one it came in with),
//! and written as a blocked run through the exchange slice, as many lanes at a time as their rows
//! fit (the slice holds 32 rows of ITEMS + 1 units).
template <class Problem, int ITEMS, int VEC, class = void>
struct column_narrow_sides : std::false_type {};
template <class Problem, int ITEMS, int VEC>
struct column_narrow_sides<Problem, ITEMS, VEC,
                           std::enable_if_t<has_side_output<Problem> && rows_in_place<Problem> &&
                                            column_unit_rows<typename Problem::input_t, ITEMS, VEC> &&
                                            std::is_pointer_v<decltype(Problem::side_out)> && ITEMS < 16 && VEC <= 4 &&
                                            (ITEMS * VEC * sizeof(typename Problem::side_t)) % 16 == 0>>
    : std::true_type {
  using side_t = typename Problem::side_t;
  static constexpr int count = ITEMS * VEC;
  static constexpr int words = (count + 7) / 8;
  static constexpr unsigned came_in = 15;  //!< the code of the position the thread came in with
  static constexpr int units = static_cast<int>(count * sizeof(side_t) / 16);  //!< per lane
  //! Lanes whose rows fit the exchange slice at once (a power of two).
  static constexpr int lanes_at_once = [] {
    int g = 32;
    while (g > 1 && static_cast<std::size_t>(g) * unit_row_pitch(units) * 16 > unit_slice_bytes(ITEMS)) {
      g /= 2;
    }
    return g;
  }();
  static_assert(lanes_at_once * units % 32 == 0, "a pass of rows fills whole warp-wide stores");

  unsigned code[words];
  std::int64_t row0;
  std::int64_t entry[VEC];  //!< the position each column came in with

  template <class Acc>
  FASTSCAN_DEVICE void begin(const Acc (&running)[VEC], const bool (&has)[VEC], std::int64_t first_row) {
    row0 = first_row;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      entry[v] = has[v] ? running[v].index : first_row;
    }
#pragma unroll
    for (int w = 0; w < words; ++w) {
      code[w] = 0;
    }
  }
  FASTSCAN_DEVICE void keep(int i, int v, side_t index) {
    const std::int64_t d = static_cast<std::int64_t>(index) - row0;
    const unsigned c = d >= 0 ? static_cast<unsigned>(d) : came_in;
    const int n = i * VEC + v;
    code[n / 8] |= c << (4 * (n % 8));
  }
  FASTSCAN_DEVICE side_t index(int n) const {
    const unsigned c = (code[n / 8] >> (4 * (n % 8))) & 15u;
    return static_cast<side_t>(c == came_in ? entry[n % VEC] : row0 + c);
  }
  static FASTSCAN_DEVICE bool aligned(const Problem& prob, std::int64_t warp_base) {
    return reinterpret_cast<std::uintptr_t>(prob.out + warp_base) % 16 == 0 &&
           reinterpret_cast<std::uintptr_t>(prob.side_out + warp_base) % 16 == 0;
  }
  //! Writes the warp's indices to `warp_side` (16-byte aligned) through `slice`, which the caller
  //! has finished with.
  FASTSCAN_DEVICE void leave(side_t* warp_side, uint4* slice) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
    for (int first = 0; first < 32; first += lanes_at_once) {
      if (lane >= first && lane < first + lanes_at_once) {
        side_t* const row = unit_row<side_t, units>(slice, lane - first);
#pragma unroll
        for (int n = 0; n < count; ++n) {
          row[n] = index(n);
        }
      }
      warp_unstage_rows<units, lanes_at_once>(warp_side + static_cast<std::int64_t>(first) * count, slice);
    }
  }
  //! The same for a warp of odd rows (column_odd_row_parts): its indices are (32 / lanes_x) parts
  //! of ITEMS * inner, written through `slice` (of `slice_bytes`) in passes of as many parts as fit.
  FASTSCAN_DEVICE void leave_parts(side_t* warp_side, uint4* slice, std::size_t slice_bytes, int inner, int lanes_x_log2,
                                   int tx, int ncols) const {
    using W = std::conditional_t<sizeof(side_t) == 8, unsigned long long, unsigned>;
    static_assert(sizeof(side_t) == sizeof(W), "indices of 4 or 8 bytes");
    const int count = 32 >> lanes_x_log2;
    const int part = ITEMS * inner;
    int group = count;
    while (group > 1 && word_parts::bytes(part, group, sizeof(W)) > slice_bytes) {
      group /= 2;
    }
    const word_parts parts(part, group);
    const int yl = (static_cast<int>(threadIdx.x) & 31) >> lanes_x_log2;
    auto* const words = reinterpret_cast<side_t*>(slice);
    for (int first = 0; first < count; first += group) {
      __syncwarp();
      if (yl >= first && yl < first + group) {
        side_t* const row = words + (yl - first) * parts.pitch + tx * VEC;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) {
            if (v < ncols) {
              row[i * inner + v] = index(i * VEC + v);
            }
          }
        }
      }
      warp_unstage_words(reinterpret_cast<W*>(warp_side + static_cast<std::int64_t>(first) * part),
                         reinterpret_cast<const W*>(words), parts);
    }
  }
};

//! Word staging of a warp whose rows are whole rows of the plane narrower than the tile (3 floats
//! against a tile of 4 columns, 6 against 8; column_tile_part::warp_rows): the warp's run in
//! W-byte words, each thread row's ITEMS rows one part. False where the parts are not whole words
//! or do not fit the warp's exchange slice.
template <class W, class T, int ITEMS, int VEC>
FASTSCAN_DEVICE bool column_odd_row_parts(const column_scan_params& p, word_parts& parts) {
  const std::size_t part_bytes = static_cast<std::size_t>(ITEMS) * static_cast<std::size_t>(p.inner) * sizeof(T);
  const int part_words = static_cast<int>(part_bytes / sizeof(W));
  const int count = 32 >> log2_pow2(p.lanes_x);
  if (part_bytes % sizeof(W) != 0 || part_words < 2 ||
      word_parts::bytes(part_words, count, sizeof(W)) > column_slice_bytes<T, ITEMS, VEC>()) {
    return false;
  }
  parts = word_parts(part_words, count);
  return true;
}

template <int ITEMS, int VEC, bool Exact, bool Odd, class Problem>
FASTSCAN_DEVICE void column_scan_tile(const Problem& prob, const column_scan_params& p, std::int64_t tile,
                                      unsigned char* smem) {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  const int tid = static_cast<int>(threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x);
  const column_tile_part t = column_part<ITEMS, VEC>(p, tile);
  const std::int64_t k = t.k;
  const int tx = t.tx;
  const int ty = t.ty;
  const std::int64_t row0 = t.row0;
  const int nrows = t.nrows;
  const int ncols = t.ncols;
  const std::int64_t base = t.base;
  const bool warp_full = t.warp_full;
  const std::int64_t warp_base = t.warp_base;

  // Rows narrower than a line (whole rows of the plane when warp_full) move as warp runs.
  const bool narrow_rows = static_cast<std::size_t>(p.inner) * sizeof(input_t) < policy::column_stage_rows_below_bytes;
  if (p.prefetch_tiles > 0 && tile + p.prefetch_tiles < p.num_tiles) {
    const column_tile_part ahead = column_part<ITEMS, VEC>(p, tile + p.prefetch_tiles);
    bool ahead_run = false;
    if constexpr (std::is_pointer_v<decltype(prob.in)>) {
      if (ahead.warp_full && narrow_rows) {
        // The warp's contiguous run, one 128-byte line per lane per step.
        constexpr int lines = static_cast<int>(32 * ITEMS * VEC * sizeof(input_t) / 128);
        const auto* const run = reinterpret_cast<const unsigned char*>(prob.in + ahead.warp_base);
#pragma unroll
        for (int j = 0; j < lines; j += 32) {
          if (j + (tid & 31) < lines) {
            prefetch_l2(run + static_cast<std::size_t>(j + (tid & 31)) * 128);
          }
        }
        ahead_run = true;
      }
    }
    if (!ahead_run && ahead.ncols > 0) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (i < ahead.nrows) {
          prefetch_l2(prob.in + (ahead.base + i * p.inner));
        }
      }
    }
  }

  // Each thread reads its rows directly: a warp's load covers whole 16-byte vectors of 32 / lanes_x
  // rows, every sector used; rows narrower than a line are staged as warp runs instead. Outputs of
  // a tile that spans whole rows of the [len, inner] plane leave through the warp's exchange slice
  // as one contiguous run.
  const int lane = tid & 31;
  const int tile_cols = static_cast<int>(p.tile_cols);
  uint4* const exchange = column_exchange<acc_t, input_t, ITEMS, VEC>(p, smem);
  constexpr bool unit_rows = column_unit_rows<input_t, ITEMS, VEC>;

  // The thread's items stay in its exchange row until the outputs are formed (registers are the
  // limit here); inputs wider than a 16-byte unit per row stay in registers.
  input_t held[unit_rows ? 1 : ITEMS * VEC];
  input_t* const items = unit_rows ? unit_row<input_t, ITEMS>(exchange, lane) : held;
  input_t* rows = items;  // where the checked loops find the thread's rows, rp elements apart
  bool staged = false;
  // Rows narrower than the tile (3 floats against a tile of 4 columns, 6 against 8): the warp's
  // whole rows are one contiguous run, staged word by word, each thread row's rows one part
  // (column_odd_row_parts) in which the thread finds its columns `inner` elements from row to
  // row (rp). Such warps take the checked loops below (some thread has fewer than VEC columns), so
  // the unchecked ones keep rows VEC elements apart at compile time.
  using word_t = std::conditional_t<sizeof(input_t) % 8 == 0, unsigned long long, unsigned>;
  bool odd = false;
  if constexpr (unit_rows && std::is_pointer_v<decltype(prob.in)>) {
    // A warp whose rows are whole rows of the plane, narrower than a line, loads them as one
    // contiguous run, every instruction a run of whole lines (policy::column_stage_rows_below_bytes).
    const input_t* const warp_in = prob.in + warp_base;
    if (warp_full && narrow_rows && reinterpret_cast<std::uintptr_t>(warp_in) % 16 == 0) {
      warp_stage_units<ITEMS>(warp_in, exchange, p.lanes_x);
      staged = true;
    }
    word_parts parts;
    if (Odd && t.warp_rows && !t.warp_full && narrow_rows && reinterpret_cast<std::uintptr_t>(warp_in) % sizeof(word_t) == 0 &&
        column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts)) {
      auto* const words = reinterpret_cast<word_t*>(exchange);
      warp_stage_words(reinterpret_cast<const word_t*>(warp_in), words, parts);
      rows = reinterpret_cast<input_t*>(words + (lane >> log2_pow2(p.lanes_x)) * parts.pitch) + tx * VEC;
      staged = odd = true;
    }
  }
  const int rp = odd ? static_cast<int>(p.inner) : VEC;
  if (!staged) {
    // All rows are loaded before any is kept, so their loads are in flight together (a load
    // followed at once by its shared-memory store waited out the whole memory latency per row).
    input_t run[ITEMS][VEC];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < nrows) {
        load_run<VEC>(prob.in + (base + i * p.inner), run[i], ncols);
      }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < nrows) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          items[i * VEC + v] = run[i][v];
        }
      }
    }
  }

  // A thread with all ITEMS rows and VEC columns in range (most threads) reduces and forms them
  // without the checks for bounds and missing prefixes (`whole`, `fast` below): the checks were
  // over half of those loops' instructions. Kernels of at most policy::column_short_items rows keep
  // the checked loops alone (the second path made them slower). The choice is the warp's (below).
  const bool whole = ITEMS > policy::column_short_items && __all_sync(full_warp_mask, nrows == ITEMS && ncols == VEC);
  acc_t total[VEC];
  if (whole) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        const acc_t e = prob.lift(items[i * VEC + v], row0 + i);
        total[v] = i == 0 ? e : prob.op(total[v], e);
      }
    }
  } else {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      total[v] = acc_t{};
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (i < nrows && v < ncols) {
          const acc_t e = prob.lift(rows[i * rp + v], row0 + i);
          total[v] = i == 0 ? e : prob.op(total[v], e);
        }
      }
    }
  }

  // Down the columns: the thread rows of a warp that share tx form a chain lanes_x lanes apart
  // (shuffle scan); warp rows are then combined through shared memory. Thread rows past the end of
  // len hold no items and only ever follow the valid ones.
  const int rows_log2 = p.lanes_x >= 32 ? 0 : 5 - log2_pow2(p.lanes_x);
  const int rows_per_warp = 1 << rows_log2;
  const int wy = ty >> rows_log2;
  const int yl = ty - (wy << rows_log2);
  const std::int64_t tile_rows_left = p.len - k * p.tile_rows;
  const int last_ty = static_cast<int>(((tile_rows_left < p.tile_rows ? tile_rows_left : p.tile_rows) - 1) >> log2_pow2(p.items));
  const int last_wy = last_ty >> rows_log2;
  acc_t before_lane[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    total[v] = warp_strided_inclusive_scan(total[v], prob.op, p.lanes_x);
    if (rows_per_warp > 1) {
      before_lane[v] = shuffle_up(total[v], static_cast<unsigned>(p.lanes_x));
    }
  }

  const std::size_t warp_rows = static_cast<std::size_t>(column_warp_rows(p.lanes_x, p.lanes_y));
  acc_t* const warp_totals = reinterpret_cast<acc_t*>(smem);
  acc_t* const totals = reinterpret_cast<acc_t*>(smem + smem_align16(warp_rows * tile_cols * sizeof(acc_t)));
  bool* const has_prefix = reinterpret_cast<bool*>(reinterpret_cast<unsigned char*>(totals) +
                                                   smem_align16(static_cast<std::size_t>(tile_cols) * sizeof(acc_t)));
  if (ty == (wy * rows_per_warp + rows_per_warp - 1 < last_ty ? wy * rows_per_warp + rows_per_warp - 1 : last_ty)) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      warp_totals[wy * tile_cols + tx * VEC + v] = total[v];
    }
  }
  __syncthreads();
  const bool first_tile = k == 0;
  for (int c = tid; c < tile_cols; c += nthreads) {
    acc_t t = warp_totals[c];
    for (int r = 1; r <= last_wy; ++r) {
      t = prob.op(t, warp_totals[r * tile_cols + c]);
    }
    totals[c] = t;
    has_prefix[c] = !first_tile;
  }
  __syncthreads();

  // Publish the column totals, then look back for the prefix of the tile's columns: the warps
  // share the columns (at most 32, plan.hpp), and each looks back for its columns at once (window
  // polls of one round trip, 32 / columns deep).
  if (p.lookback) {
    const tile_state<acc_t> state{static_cast<ulonglong2*>(p.tile_words), p.tag, p.first_poll_ns};
    const int warps = nthreads / 32;
    constexpr int min_cols = policy::column_lookback_min_cols_per_warp<Exact>;
    const int least = tile_cols < min_cols ? tile_cols : min_cols;
    const int spread = tile_cols >= warps ? tile_cols >> log2_pow2(warps) : 1;
    const int per_warp = spread > least ? spread : least;
    const int first_col = (tid / 32) * per_warp;
    const int c = first_col + (lane & (per_warp - 1));
    // Ordered (float) sums along one chain look back in two levels (tile groups), reaching the
    // square of a window per round trip (policy::column_grouped_lookback_max_chains).
    const bool grouped = !Exact && p.group_words != nullptr;
    if (first_col < tile_cols && lane < per_warp) {
      state.publish(tile, totals[c], first_tile && !grouped ? tile_prefix : tile_aggregate, tile_cols, c);
    }
    if (!grouped) {
      if (!first_tile && first_col < tile_cols) {
        const acc_t before =
            state.template exclusive_prefix<Exact>(tile, prob.op, p.chains, per_warp, tile_cols, first_col);
        if (lane < per_warp) {
          state.publish(tile, prob.op(before, totals[c]), tile_prefix, tile_cols, c);
          totals[c] = before;
        }
      }
    } else if (first_col < tile_cols) {
      if constexpr (!Exact) {
        const tile_state<acc_t> groups{static_cast<ulonglong2*>(p.group_words), p.tag, 0};
        acc_t before;
        state.grouped_exclusive_prefix(tile, k, p.chains, totals[c], prob.op, groups, per_warp, tile_cols, first_col,
                                       before);
        __syncwarp();
        if (!first_tile && lane < per_warp) {
          totals[c] = before;
        }
      }
    }
  }
  __syncthreads();

  // The thread's prefix: prefix from the look-back, then the warp rows above, then the lanes above.
  acc_t running[VEC];
  bool has_running[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int c = tx * VEC + v;
    has_running[v] = has_prefix[c];
    running[v] = totals[c];
    for (int r = 0; r < wy; ++r) {
      const acc_t w = warp_totals[r * tile_cols + c];
      running[v] = has_running[v] ? prob.op(running[v], w) : w;
      has_running[v] = true;
    }
    if (yl > 0) {
      running[v] = has_running[v] ? prob.op(running[v], before_lane[v]) : before_lane[v];
      has_running[v] = true;
    }
  }
  bool fast = whole;
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    fast = fast && has_running[v];
  }
  // The whole warp takes one path: in a chain's first tile the warp's first thread row has no
  // prefix, and a warp split between the paths runs both in turn.
  fast = __all_sync(full_warp_mask, fast);
  // Forms the output of row i, column v of the thread into slot `slot` of `out`; Fast: the row and
  // column are in range and the column has a prefix.
  auto form = [&](auto& out, int slot, int i, int v, auto is_fast) {
    constexpr bool Fast = decltype(is_fast)::value;
    const acc_t e = prob.lift(Fast ? items[i * VEC + v] : rows[i * rp + v], row0 + i);
    const acc_t previous = running[v];
    const bool had = Fast || has_running[v];
    running[v] = had ? prob.op(running[v], e) : e;
    prob.put(out, slot, running[v], previous, had);
    has_running[v] = true;
  };
  if constexpr (sizeof(acc_t) >= policy::column_stream_min_acc_bytes) {
    if constexpr (column_narrow_sides<Problem, ITEMS, VEC>::value) {
      // One thread across the row (lanes_x == 1) and the warp's rows one contiguous run: the
      // streamed stores below would write 16 bytes per lane and row, half a sector, lanes a
      // whole thread's rows apart. Instead the values are formed in place of the staged inputs
      // and the indices kept as their row within the thread (column_narrow_sides), and both
      // leave as whole runs through the exchange slice.
      if (staged && !odd && p.lanes_x == 1 && column_narrow_sides<Problem, ITEMS, VEC>::aligned(prob, warp_base)) {
        column_narrow_sides<Problem, ITEMS, VEC> sides;
        sides.begin(running, has_running, row0);
        auto form_rows = [&](auto is_fast) {
#pragma unroll
          for (int i = 0; i < ITEMS; ++i) {
            typename Problem::template buffer<VEC> out;
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
              form(out, v, i, v, is_fast);
              items[i * VEC + v] = out.v[v];
              sides.keep(i, v, out.i[v]);
            }
          }
        };
        if (fast) {
          form_rows(std::true_type{});
        } else {
          form_rows(std::false_type{});
        }
        warp_unstage_units<ITEMS>(prob.out + warp_base, exchange);
        sides.leave(prob.side_out + warp_base, exchange);
        return;
      }
    }
    if constexpr (Odd && column_narrow_sides<Problem, ITEMS, VEC>::value) {
      // Odd rows (column_odd_row_parts): values formed in place of the staged inputs, indices
      // kept as codes, both leave as whole runs through the exchange slice.
      word_parts parts;
      if (odd && reinterpret_cast<std::uintptr_t>(prob.out + warp_base) % sizeof(word_t) == 0 &&
          column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts)) {
        column_narrow_sides<Problem, ITEMS, VEC> sides;
        sides.begin(running, has_running, row0);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          typename Problem::template buffer<VEC> out;
#pragma unroll
          for (int v = 0; v < VEC; ++v) {
            if (v < ncols) {
              form(out, v, i, v, std::false_type{});
              rows[i * rp + v] = out.v[v];
              sides.keep(i, v, out.i[v]);
            }
          }
        }
        warp_unstage_words(reinterpret_cast<word_t*>(prob.out + warp_base), reinterpret_cast<const word_t*>(exchange),
                           parts);
        sides.leave_parts(prob.side_out + warp_base, exchange, column_slice_bytes<input_t, ITEMS, VEC>(),
                          static_cast<int>(p.inner), log2_pow2(p.lanes_x), tx, ncols);
        return;
      }
    }
    // Each row of outputs leaves as soon as it is formed: a warp's stores of one row index cover
    // whole 16-byte vectors of 32 / lanes_x rows, and no output buffer holds registers.
    auto form_rows = [&](auto is_fast) {
      constexpr bool Fast = decltype(is_fast)::value;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (Fast || i < nrows) {
          typename Problem::template buffer<VEC> out;
#pragma unroll
          for (int v = 0; v < VEC; ++v) {
            if (Fast || v < ncols) {
              form(out, v, i, v, is_fast);
            }
          }
          prob.store(out, base + i * p.inner, 0, [&](auto ptr, const auto& values, int) {
            using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
            value_t run[VEC];
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
              run[v] = values[v];
            }
            store_run<VEC>(ptr, run, Fast ? VEC : ncols);
          });
        }
      }
    };
    if (fast) {
      form_rows(std::true_type{});
    } else {
      form_rows(std::false_type{});
    }
  } else {
    // Outputs of the inputs' type are formed in place of the staged inputs (no output buffer in
    // registers) and leave from there.
    using buffer_t = typename Problem::template buffer<ITEMS * VEC>;
    constexpr bool in_place = unit_rows && outputs_in_place<Problem>;
    buffer_t held_out;
    buffer_t& out_fast = in_place ? *reinterpret_cast<buffer_t*>(items) : held_out;
    buffer_t& out = in_place ? *reinterpret_cast<buffer_t*>(rows) : held_out;
    auto form_rows = [&](auto is_fast) {
      constexpr bool Fast = decltype(is_fast)::value;
      buffer_t& into = Fast ? out_fast : out;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (Fast || i < nrows) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) {
            if (Fast || v < ncols) {
              form(into, (in_place && !Fast ? i * rp : i * VEC) + v, i, v, is_fast);
            }
          }
        }
      }
    };
    if (fast) {
      form_rows(std::true_type{});
    } else {
      form_rows(std::false_type{});
    }
    prob.store(out, base, 0, [&](auto ptr, const auto& values, int) {
      using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
      if constexpr (is_pointer_to_v<decltype(ptr), value_t> && column_unit_rows<value_t, ITEMS, VEC>) {
        value_t* const warp_ptr = ptr - (base - warp_base);
        if constexpr (in_place) {
          word_parts parts;
          if (odd && reinterpret_cast<std::uintptr_t>(warp_ptr) % sizeof(word_t) == 0 &&
              column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts)) {
            warp_unstage_words(reinterpret_cast<word_t*>(warp_ptr), reinterpret_cast<const word_t*>(exchange), parts);
            return;
          }
        }
        if (warp_full && reinterpret_cast<std::uintptr_t>(warp_ptr) % 16 == 0) {
          if constexpr (!in_place) {
            value_t* const row = unit_row<value_t, ITEMS>(exchange, lane);
#pragma unroll
            for (int j = 0; j < ITEMS * VEC; ++j) {
              row[j] = values[j];
            }
          }
          warp_unstage_units<ITEMS>(warp_ptr, exchange, p.lanes_x);
          return;
        }
      }
      // (Odd rows: a thread reads only its columns, the others may lie past its warp's parts.)
      auto store_rows = [&](int pitch, auto odd_rows) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          if (i < nrows) {
            value_t run[VEC];
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
              run[v] = !decltype(odd_rows)::value || v < ncols ? values[i * pitch + v] : value_t{};
            }
            store_run<VEC>(ptr + i * p.inner, run, ncols);
          }
        }
      };
      if (in_place && odd) {
        store_rows(rp, std::true_type{});
      } else {
        store_rows(VEC, std::false_type{});
      }
    });
  }
}

//! One block scans tiles as for_each_tile hands them out. Odd: a kernel for plans whose rows are
//! narrower than the tile (tile_cols > inner), which stages them word by word (column_odd_row_parts);
//! kept apart so that the other plans' kernels carry none of it.
template <int ITEMS, int VEC, bool Exact, class Problem, bool Odd = false>
FASTSCAN_KERNEL __launch_bounds__(policy::column_threads, policy::column_min_blocks_per_sm) void column_scan_kernel(Problem prob, column_scan_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  for_each_tile<(ITEMS <= policy::column_short_items)>(
      p.tile_counter, p.num_tiles, [&](std::int64_t tile) { column_scan_tile<ITEMS, VEC, Exact, Odd>(prob, p, tile, smem); });
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
