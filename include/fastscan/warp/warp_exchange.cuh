//! \file warp_exchange.cuh
//! Moves a warp's contiguous run of 32 * N elements between global memory and a blocked register
//! arrangement (lane l holds elements [l*N, l*N + N)) with coalesced 16-byte accesses, by
//! exchanging 16-byte units through the warp's slice of shared memory.
//!
//! Direct blocked accesses of N*sizeof(T) bytes per lane touch 32 lines per warp instruction, which
//! caps a memory-bound kernel at a fraction of the bandwidth; through shared memory every global
//! access is a full coalesced line. Units are exchanged in passes of at most 8 per lane (128 bytes),
//! with one unit of padding per lane so that the blocked side is free of bank conflicts.
#pragma once

#include <fastscan/config.cuh>

#include <cstring>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The thread's lane, read afresh at each call: the compiler cannot keep addresses made from it
//! alive from one pass of a kernel to the next (a row tile scanned twice held 8 unit slots across
//! both and spilled them).
FASTSCAN_DEVICE int fresh_lane() {
  int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

constexpr int exchange_units_per_pass = 8;
//! Most units per lane that warp_stage_units moves in one pass (a row of them, padded by a unit).
constexpr int exchange_units_max = 16;

//! Shared-memory bytes one warp needs for the exchange.
__host__ __device__ constexpr std::size_t warp_exchange_bytes() {
  return 32 * (exchange_units_per_pass + 1) * 16;
}

//! A warp slice of unit rows: each lane's U 16-byte units as one row, padded by a unit (so the
//! blocked side is free of bank conflicts), the layout warp_stage_units / warp_unstage_units use;
//! at least the bytes warp_store_blocked takes.
__host__ __device__ constexpr int unit_row_pitch(int units) { return units > 1 ? units + 1 : 1; }
__host__ __device__ constexpr std::size_t unit_slice_bytes(int units) {
  const std::size_t rows = 32 * 16 * static_cast<std::size_t>(unit_row_pitch(units));
  return rows > warp_exchange_bytes() ? rows : warp_exchange_bytes();
}
//! Lane `lane`'s row of U units in its warp's slice.
template <class T, int U>
FASTSCAN_DEVICE T* unit_row(uint4* slice, int lane) {
  return reinterpret_cast<T*>(slice + lane * unit_row_pitch(U));
}

template <class T, int N>
struct warp_exchange_shape {
  static constexpr bool supported = (sizeof(T) * N) % 16 == 0;
  static constexpr int units = static_cast<int>(sizeof(T) * N / 16);  //!< 16-byte units per lane
  static constexpr int per_pass = units < exchange_units_per_pass ? units : exchange_units_per_pass;
  static constexpr int passes = units / per_pass;
  static constexpr int pitch = per_pass > 1 ? per_pass + 1 : 1;  //!< padded units per lane in smem
  static_assert(!supported || units % per_pass == 0, "units per lane must split into equal passes");
};

//! Where unit g of a warp's contiguous run of 32 * U units lies in the unit rows: with
//! `interleave` = 1 lane l owns units [l*U, l*U + U) (a blocked run); with `interleave` = k (a power
//! of two), groups of k lanes own k-unit-wide strips (lane l holds unit (l / k * U + i) * k + l % k
//! as its unit i): the rows of a [rows, k units] block, k lanes across.
template <int U>
FASTSCAN_HD int staged_unit_slot(int g, int interleave_log2) {
  const int strip = g >> interleave_log2;
  const int owner = (strip / U << interleave_log2) | (g & ((1 << interleave_log2) - 1));
  return owner * unit_row_pitch(U) + strip % U;
}

//! Stages a warp's contiguous run of 32 * U 16-byte units in shared memory so that lane l finds
//! its U units at unit_row<T, U>(smem, l), laid out as staged_unit_slot says. Every unit is loaded
//! before any is kept, so the warp's loads are in flight together. With Async (sm_80 and later)
//! the units go straight to shared memory (cp.async) and hold no registers on the way.
template <int U, bool Async = false>
FASTSCAN_DEVICE void warp_stage_units(const void* warp_base, uint4* smem, int interleave = 1) {
  static_assert(U <= exchange_units_max, "staging holds at most 256 bytes per lane");
  const int lane = fresh_lane();
  const int k_log2 = __ffs(interleave) - 1;
  const auto* src = static_cast<const uint4*>(warp_base);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  constexpr bool async = false;  // (cp.async is sm_80 and later)
#else
  constexpr bool async = Async;
#endif
  if constexpr (async) {
#pragma unroll
    for (int m = 0; m < U; ++m) {
      const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem + staged_unit_slot<U>(m * 32 + lane, k_log2)));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + m * 32 + lane) : "memory");
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
  } else {
    uint4 units[U];
#pragma unroll
    for (int m = 0; m < U; ++m) {
      units[m] = src[m * 32 + lane];
    }
#pragma unroll
    for (int m = 0; m < U; ++m) {
      smem[staged_unit_slot<U>(m * 32 + lane, k_log2)] = units[m];
    }
  }
  __syncwarp();
}

//! The inverse of warp_stage_units: each lane has written its U units to its unit row; writes
//! the warp's run with coalesced 16-byte stores.
template <int U>
FASTSCAN_DEVICE void warp_unstage_units(void* warp_base, const uint4* smem, int interleave = 1) {
  const int lane = fresh_lane();
  const int k_log2 = __ffs(interleave) - 1;
  auto* dst = static_cast<uint4*>(warp_base);
  __syncwarp();
#pragma unroll
  for (int m = 0; m < U; ++m) {
    dst[m * 32 + lane] = smem[staged_unit_slot<U>(m * 32 + lane, k_log2)];
  }
  __syncwarp();
}

//! Writes the rows of G lanes, U units each (row r at unit_row<uint4, U>(smem, r)), as one blocked
//! run of G * U units at `dst`, the whole warp storing 16-byte units side by side.
template <int U, int G>
FASTSCAN_DEVICE void warp_unstage_rows(void* dst, const uint4* smem) {
  static_assert(G * U % 32 == 0, "the rows fill whole warp-wide stores");
  const int lane = fresh_lane();
  auto* out = static_cast<uint4*>(dst);
  __syncwarp();
#pragma unroll
  for (int m = 0; m < G * U / 32; ++m) {
    const int g = m * 32 + lane;
    out[g] = smem[g / U * unit_row_pitch(U) + g % U];
  }
  __syncwarp();
}

//! A warp's contiguous run cut into equal parts of `part_words` W-byte words (one part per group
//! of lanes, e.g. the whole rows of the plane that a thread row holds), for runs whose parts are
//! not whole 16-byte units (rows of 3 floats). Part q lies in the slice at word q * pitch, the pitch
//! odd, so that lanes reading the same word of different parts hit different banks.
struct word_parts {
  int part_words = 2;
  int pitch = 3;
  int words = 0;    //!< the run's words
  unsigned inv = 0;  //!< ceil(2^32 / part_words): q = umulhi(w, inv) is w / part_words exactly while
                     //!< w * part_words < 2^32 (the error w * (inv - 2^32 / part_words) / 2^32 stays
                     //!< below 1 / part_words)
  static FASTSCAN_HD constexpr int pitch_of(int part_words) { return part_words + 1 + (part_words & 1); }
  static FASTSCAN_HD constexpr std::size_t bytes(int part_words, int parts, std::size_t word_bytes) {
    return static_cast<std::size_t>(parts) * static_cast<std::size_t>(pitch_of(part_words)) * word_bytes;
  }
  word_parts() = default;
  //! part_words >= 2.
  FASTSCAN_HD word_parts(int part_words_, int parts)
      : part_words(part_words_), pitch(pitch_of(part_words_)), words(part_words_ * parts),
        inv(0xffffffffu / static_cast<unsigned>(part_words_) + 1u) {}
  //! The slice word that holds word w (< words) of the run.
  FASTSCAN_HD int slot(int w) const {
    const auto q = static_cast<int>((static_cast<unsigned long long>(static_cast<unsigned>(w)) * inv) >> 32);
    return w + q * (pitch - part_words);
  }
};

//! Stages the warp's run of r.words W-byte words at `src` in `smem` as word_parts lays it out: every
//! load in flight at once (cp.async on sm_80 and later), each warp-wide access a whole line.
template <class W>
FASTSCAN_DEVICE void warp_stage_words(const W* src, W* smem, const word_parts& r) {
  static_assert(sizeof(W) == 4 || sizeof(W) == 8, "words of 4 or 8 bytes");
  const int lane = fresh_lane();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll 4
  for (int w = lane; w < r.words; w += 32) {
    const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem + r.slot(w)));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src + w), "n"(sizeof(W)) : "memory");
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#else
  for (int w = lane; w < r.words; w += 32) {
    smem[r.slot(w)] = src[w];
  }
#endif
  __syncwarp();
}

//! The inverse of warp_stage_words: writes the staged parts as the run at `dst`.
template <class W>
FASTSCAN_DEVICE void warp_unstage_words(W* dst, const W* smem, const word_parts& r) {
  const int lane = fresh_lane();
  __syncwarp();
#pragma unroll 4
  for (int w = lane; w < r.words; w += 32) {
    dst[w] = smem[r.slot(w)];
  }
  __syncwarp();
}

//! Stores blocked `items` as 32 * N contiguous elements at `warp_base` (16-byte aligned).
template <int N, class T>
FASTSCAN_DEVICE void warp_store_blocked(T* warp_base, const T (&items)[N], uint4* smem) {
  using shape = warp_exchange_shape<T, N>;
  const int lane = fresh_lane();
  auto* dst = reinterpret_cast<unsigned char*>(warp_base);
  uint4 mine[shape::units];
  memcpy(&mine, &items, sizeof(items));
  // The slice may still hold what other lanes are reading (their staged inputs, at another pitch
  // when the output type is wider): the warp is done with it first.
  __syncwarp();
#pragma unroll
  for (int pass = 0; pass < shape::passes; ++pass) {
#pragma unroll
    for (int j = 0; j < shape::per_pass; ++j) {
      smem[lane * shape::pitch + j] = mine[pass * shape::per_pass + j];
    }
    __syncwarp();
#pragma unroll
    for (int m = 0; m < shape::per_pass; ++m) {
      const int u = m * 32 + lane;
      const int t = u / shape::per_pass;
      const int j = u % shape::per_pass;
      *reinterpret_cast<uint4*>(dst + static_cast<std::size_t>(t) * N * sizeof(T) +
                                static_cast<std::size_t>(pass * shape::per_pass + j) * 16) = smem[t * shape::pitch + j];
    }
    __syncwarp();
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
