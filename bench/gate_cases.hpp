//! \file gate_cases.hpp
//! The regression gate's headline set (scripts/ab.sh --against): one list that the timing driver
//! (gate.cu) and every header tree's entry TU (gate_entry.cu) read, so both sides run the same
//! cases. Host only: no fastscan header, so the driver links trees of any namespace.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gate {

enum class op { cumsum, cummax, segment_sum, segmented_cumsum, bev_pool };
enum class dtype { u8, f16, f32, i64 };

struct gate_case {
  const char* name;
  op what;
  dtype type;
  std::int64_t outer, len, inner;  //!< the scan's view; segmented ops: S = len rows of C = inner
  std::int64_t segments;           //!< segmented ops: runs of keys (bev_pool: grid cells)
  bool cub;                        //!< CUB's InclusiveSum of the same array runs beside it
};

constexpr std::int64_t M = std::int64_t{1} << 20;

// The issue-37 table, the 1-D headlines with CUB beside them, and the rows later issues must keep.
constexpr gate_case cases[] = {
    {"cumsum i64 [1, 2^28, 1]", op::cumsum, dtype::i64, 1, 256 * M, 1, 0, true},
    {"cumsum f32 [1, 2^28, 1]", op::cumsum, dtype::f32, 1, 256 * M, 1, 0, true},
    {"cummax i64 [1, 2^27, 1]", op::cummax, dtype::i64, 1, 128 * M, 1, 0, false},
    {"cummax f32 [1, 2^27, 1]", op::cummax, dtype::f32, 1, 128 * M, 1, 0, false},
    {"cumsum i64 [2^20, 16, 1]", op::cumsum, dtype::i64, M, 16, 1, 0, false},
    {"cummax i64 [16384, 8192, 1]", op::cummax, dtype::i64, 16384, 8192, 1, 0, false},
    {"cumsum f32 [2^20, 100, 1]", op::cumsum, dtype::f32, M, 100, 1, 0, false},
    {"cumsum f32 [1, 2^21, 64]", op::cumsum, dtype::f32, 1, 2 * M, 64, 0, false},
    {"cummax i64 [1, 65536, 1] (latency)", op::cummax, dtype::i64, 1, 65536, 1, 0, false},
    {"cumsum i64 [1, 16384, 1] (latency)", op::cumsum, dtype::i64, 1, 16384, 1, 0, true},
    {"cumsum u8 [1, 2^26, 1]", op::cumsum, dtype::u8, 1, 64 * M, 1, 0, false},
    {"cumsum f16 [1, 2^21, 64]", op::cumsum, dtype::f16, 1, 2 * M, 64, 0, false},
    {"cumsum i64 [4096, 64, 256]", op::cumsum, dtype::i64, 4096, 64, 256, 0, false},
    {"segment_sum f32 [2^23, 64], 320000 runs", op::segment_sum, dtype::f32, 1, 8 * M, 64, 320000, false},
    {"segment_sum f16 [2^23, 64], 320000 runs", op::segment_sum, dtype::f16, 1, 8 * M, 64, 320000, false},
    {"segmented_cumsum f32 [2^23, 64], 320000 runs", op::segmented_cumsum, dtype::f32, 1, 8 * M, 64, 320000, false},
    {"bev_pool f16 [2^23, 64], 320000 cells", op::bev_pool, dtype::f16, 1, 8 * M, 64, 320000, false},
};
constexpr int num_cases = static_cast<int>(sizeof(cases) / sizeof(cases[0]));

inline std::size_t type_bytes(dtype t) { return t == dtype::u8 ? 1 : t == dtype::f16 ? 2 : t == dtype::f32 ? 4 : 8; }
inline std::int64_t elements(const gate_case& c) { return c.outer * c.len * c.inner; }

//! The device buffers of one case, allocated by the driver: `in` (elements of the type), `out`
//! (elements of the output type: the input's, float for segmented float16), `indices` (int64,
//! cummax), `keys` (int64, segmented ops: sorted runs; bev_pool: unsorted cells), `unique` and
//! `count` (segment_sum).
struct buffers {
  void* in;
  void* out;
  std::int64_t* indices;
  std::int64_t* keys;
  std::int64_t* unique;
  std::int64_t* count;
};

//! One header tree's call of case `c`: two-phase (a null temp asks for the size).
using entry_fn = cudaError_t (*)(const gate_case& c, void* temp, std::size_t& temp_bytes, const buffers& b,
                                 cudaStream_t stream);

}  // namespace gate
