//! \file explain.hpp
//! A plan in words: which kernel runs a shape, its tiles, and why, so that a user who sees a slow
//! shape can report what fastscan chose (fastscan::explain_cumsum / explain_cummax). Host only.
#pragma once

#include <fastscan/plan/plan.hpp>

#include <string>

namespace FASTSCAN_NAMESPACE {
namespace detail {

inline std::string shape_text(Shape3 s) {
  return "[" + std::to_string(s.outer) + ", " + std::to_string(s.len) + ", " + std::to_string(s.inner) + "]";
}

//! The row kernel's tiles, and whether they look back (a row longer than a tile, or rows that
//! straddle tiles) or each start at a row (every tile scans alone).
inline std::string describe_rows(const plan& p) {
  std::string s = "rows: flat tiles of " + std::to_string(p.items) + " items x " + std::to_string(p.block_threads) +
                  " threads (" + std::to_string(p.tile_items) + " elements) over outer * len, " +
                  std::to_string(p.num_tiles) + " tiles";
  s += p.lookback ? "; a decoupled look-back carries rows across tiles (a row is longer than a tile, or straddles two)"
                  : "; no look-back: every tile starts at a row";
  return s;
}

//! The column kernel's tiles: columns across, rows down, chains of tiles along len.
inline std::string describe_columns(const plan& p) {
  std::string s = "columns: tiles of " + std::to_string(p.tile_cols) + " columns (" + std::to_string(p.vec) +
                  " a thread x " + std::to_string(p.lanes_x) + " lanes) x " + std::to_string(p.tile_items) +
                  " rows (" + std::to_string(p.items) + " a thread x " + std::to_string(p.lanes_y) + " lanes), " +
                  std::to_string(p.num_tiles) + " tiles in " + std::to_string(p.layout.outer * p.col_chunks) +
                  " chains of " + std::to_string(p.len_tiles);
  if (!p.lookback) {
    return s + "; no look-back: a tile spans its chain";
  }
  s += "; a look-back down each chain (" + std::to_string(p.lookback_cols) + " columns a warp";
  return s + (p.lookback_groups ? ", ordered in two levels: float sums along few chains)" : ")");
}

//! The pipelined kernel's tiles and ring.
inline std::string describe_pipelined(const plan& p) {
  return "one long row, pipelined: persistent blocks of a producer warp, a reduce squad, a look-back warp and a "
         "scan-store squad (" + std::to_string(p.block_threads) + " threads) on a ring of bulk-copied stages; tiles of " +
         std::to_string(p.tile_items) + " elements, " + std::to_string(p.num_tiles) +
         " tiles taken by ticket (arrays 16-byte aligned; others take the row kernel)";
}

//! A plan's grid, shared memory, temp storage and prefetch distance.
inline std::string describe_launch(const plan& p) {
  std::string s = "; grid " + std::to_string(p.grid) + " blocks on " + std::to_string(p.sm_count) + " SMs, " +
                  std::to_string(p.smem_bytes) + " B shared memory a block, " + std::to_string(p.temp_bytes) +
                  " B temp storage";
  return p.prefetch_tiles > 0 ? s + ", L2 prefetch " + std::to_string(p.prefetch_tiles) + " tiles ahead" : s;
}

//! The plan's kind and tiles.
inline std::string describe_kind(const plan& p) {
  return p.kind == strategy::rows ? describe_rows(p) : p.kind == strategy::pipelined ? describe_pipelined(p) : describe_columns(p);
}

//! The plan the solver made for `shape`, in one paragraph.
inline std::string describe(Shape3 shape, const plan& p, const scan_types& t) {
  std::string s = shape_text(shape) + ", " + std::to_string(t.in_bytes) + "-byte elements into " +
                  std::to_string(t.acc_bytes) + "-byte accumulators: ";
  if (!p.valid) {
    return s + "rejected (" + p.error + ")";
  }
  if (p.kind == strategy::empty) {
    return s + "nothing to do (an empty shape): no launch";
  }
  if (p.layout.len == 1 && shape.len == 1) {
    s += "a scan of length 1 is a copy, planned as rows of one; ";
  }
  return s + describe_kind(p) + describe_launch(p);
}

}  // namespace detail
}  // namespace FASTSCAN_NAMESPACE
