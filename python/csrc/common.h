// Host-side helpers shared by the operators: argument checks, the [outer, len, inner] view, dtype
// dispatch and the two-phase temp storage from PyTorch's caching allocator.
#pragma once

#include "generated/dtypes.h"
#include "kernels.h"

// Per-operator headers: ATen/ATen.h (every operator) doubles the compile of these files.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/EmptyTensor.h>
#include <c10/cuda/CUDAGuard.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>

namespace fastscan_ext {

// torch's Python name of a dtype, for messages ("torch.float16").
inline std::string dtype_name(at::ScalarType t) {
  switch (t) {
    case at::kBool: return "torch.bool";
    case at::kByte: return "torch.uint8";
    case at::kChar: return "torch.int8";
    case at::kShort: return "torch.int16";
    case at::kInt: return "torch.int32";
    case at::kLong: return "torch.int64";
    case at::kHalf: return "torch.float16";
    case at::kBFloat16: return "torch.bfloat16";
    case at::kFloat: return "torch.float32";
    case at::kDouble: return "torch.float64";
    case at::kFloat8_e4m3fn: return "torch.float8_e4m3fn";
    case at::kFloat8_e5m2: return "torch.float8_e5m2";
    case at::kComplexHalf: return "torch.complex32";
    case at::kComplexFloat: return "torch.complex64";
    case at::kComplexDouble: return "torch.complex128";
    case at::kUInt16: return "torch.uint16";
    case at::kUInt32: return "torch.uint32";
    case at::kUInt64: return "torch.uint64";
    default: return std::string("torch.") + c10::toString(t);
  }
}

// Shapes and counts in messages are formatted here and passed as strings: an extension built by
// another compiler than torch's may carry its own copy of the stream inserters of integers, whose
// locale facets torch's streams lack (on the H200 machine, streaming a shape segfaulted).
inline std::string shape_str(at::IntArrayRef sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    s += (i > 0 ? ", " : "") + std::to_string(sizes[i]);
  }
  return s + "]";
}

inline void check_cuda(const at::Tensor& t, const char* op, const char* what) {
  TORCH_CHECK(t.is_cuda(), op, ": expected CUDA tensors, got ", what, " on ", t.device(),
              " (fastscan runs on CUDA only; use torch's own operator on other devices)");
}

inline void check_same_device(const at::Tensor& a, const at::Tensor& b, const char* op, const char* what) {
  TORCH_CHECK(a.device() == b.device(), op, ": ", what, " must be on the input's device ", a.device(), ", got ",
              b.device());
}

inline void check_ok(cudaError_t err, const char* op) {
  TORCH_CHECK(err == cudaSuccess, op, ": ", cudaGetErrorString(err));
}

// The scan of a contiguous tensor along `dim` (already wrapped) as [outer, len, inner]; a 0-d
// tensor is [1, 1, 1].
inline Shape3 shape_along(const at::Tensor& x, int64_t dim) {
  Shape3 s{1, 1, 1};
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t n = x.size(d);
    if (d < dim) {
      s.outer *= n;
    } else if (d == dim) {
      s.len = n;
    } else {
      s.inner *= n;
    }
  }
  return s;
}

// Wraps a negative dim as torch does (0-d tensors take -1 and 0); IndexError otherwise.
inline int64_t wrap_dim(const at::Tensor& x, int64_t dim) { return at::maybe_wrap_dim(dim, x.dim()); }

template <class T>
struct tag {
  using type = T;
};

// The dtypes with kernels, per operator family, from the dtype table (fastscan/_dtypes.py, through
// the generated dtypes.h): X(ScalarType, C++ type) lists and their names for messages.
#define FASTSCAN_EXT_IS(S, T) case at::k##S:
#define FASTSCAN_EXT_VISIT(S, T) \
  case at::k##S:                 \
    return f(tag<T>{});

// is_NAME(t): whether a dtype is in a family; visit_NAME(t, f): f(tag<T>) for its C++ type (checked
// before). KERNELS lists the dtypes with kernels (fp8 features are widened first without them).
#define FASTSCAN_EXT_DTYPE_FAMILY(NAME, LIST, KERNELS)           \
  inline bool is_##NAME(at::ScalarType t) {                      \
    switch (t) {                                                 \
      LIST(FASTSCAN_EXT_IS)                                      \
      return true;                                               \
      default:                                                   \
        return false;                                            \
    }                                                            \
  }                                                              \
  template <class F>                                             \
  void visit_##NAME(at::ScalarType t, F&& f) {                   \
    switch (t) {                                                 \
      KERNELS(FASTSCAN_EXT_VISIT)                                \
      default:                                                   \
        TORCH_INTERNAL_ASSERT(false, "unchecked dtype ", t);     \
    }                                                            \
  }

// cummax / cummin and cumsum's inputs. bool has kernels of its own: a bool tensor may hold any byte
// (u8.view(torch.bool)), which torch reads as true when not 0, and so do the library's bool entry
// points; uint8's kernels would sum and compare the raw bytes.
FASTSCAN_EXT_DTYPE_FAMILY(scan_dtype, FASTSCAN_EXT_SCAN_DTYPES, FASTSCAN_EXT_SCAN_DTYPES)
// The floating types: logcumsumexp's inputs and the gradients.
FASTSCAN_EXT_DTYPE_FAMILY(float_dtype, FASTSCAN_EXT_FLOAT_DTYPES, FASTSCAN_EXT_FLOAT_DTYPES)
// The segmented operators' features; fp8 has kernels of its own only in a build with
// FASTSCAN_NATIVE_FP8=1 (they are the slowest to compile), else it is widened to float16 first.
FASTSCAN_EXT_DTYPE_FAMILY(feature_dtype, FASTSCAN_EXT_FEATURE_DTYPES, FASTSCAN_EXT_FEATURE_KERNEL_DTYPES)

#ifdef FASTSCAN_EXT_NATIVE_FP8
inline constexpr bool native_fp8 = true;
#else
inline constexpr bool native_fp8 = false;
#endif

inline void check_scan_dtype(at::ScalarType t, const char* op) {
  TORCH_CHECK(is_scan_dtype(t), op, ": dtype ", dtype_name(t), " is not supported (", FASTSCAN_EXT_SCAN_DTYPE_NAMES, ")");
}
inline void check_float_dtype(at::ScalarType t, const char* op) {
  TORCH_CHECK(is_float_dtype(t), op, ": dtype ", dtype_name(t), " is not supported (", FASTSCAN_EXT_FLOAT_DTYPE_NAMES,
              ")");
}

template <class T>
const T* cptr(const at::Tensor& t) {
  return static_cast<const T*>(t.const_data_ptr());
}
template <class T>
T* mptr(const at::Tensor& t) {
  return static_cast<T*>(t.mutable_data_ptr());
}

// A contiguous tensor on `like`'s CUDA device from the caching allocator (on the current stream),
// without a trip through the dispatcher: allocations are most of an operator's host time.
inline at::Tensor new_empty(at::IntArrayRef sizes, at::ScalarType dtype, const at::Tensor& like) {
  return at::Tensor(at::detail::empty_cuda(sizes, dtype, like.device(), std::nullopt));
}

// The temp storage of calls that use none: the library answers a size query with 1 byte exactly
// when the call will not touch its temp storage (a scan whose tiles do not look back, a gather), so
// those calls (the latency-bound small ones) share one block per device, kept for the process,
// and skip an allocation.
inline void* unused_temp(const at::Tensor& like) {
  static std::mutex mutex;
  static std::array<void*, 64> blocks{};
  const auto device = static_cast<std::size_t>(like.get_device());
  TORCH_INTERNAL_ASSERT(device < blocks.size(), "device ordinal ", device);
  const std::lock_guard<std::mutex> lock(mutex);
  if (blocks[device] == nullptr) {
    // (Leaked on purpose: freeing it at exit would race CUDA's own teardown.)
    blocks[device] = (new at::Tensor(new_empty({256}, at::kByte, like)))->mutable_data_ptr();
  }
  return blocks[device];
}

// One size query (host only) and one call, the temp storage from the caching allocator on the
// current stream in its own allocation (never inside an output's storage, which torch.save and
// views would carry); `call(temp, temp_bytes)` is a two-phase library call (at least 1 byte).
template <class Call>
void two_phase(const char* op, const at::Tensor& like, Call&& call) {
  std::size_t bytes = 0;
  check_ok(call(nullptr, bytes), op);
  if (bytes <= 1) {
    check_ok(call(unused_temp(like), bytes), op);
    return;
  }
  const at::Tensor temp = new_empty({static_cast<int64_t>(bytes)}, at::kByte, like);
  check_ok(call(temp.mutable_data_ptr(), bytes), op);
}

}  // namespace fastscan_ext
