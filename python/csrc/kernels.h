// The library calls the extension makes, one explicit instantiation per element type in the
// csrc/cuda/*.cu files. Host code includes only this header, so no translation unit that sees
// torch's headers compiles device code, and no .cu file parses torch's headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <fastscan/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fastscan_ext {

using Shape3 = FASTSCAN_NAMESPACE::Shape3;
using fp8 = __nv_fp8_e4m3;  // torch.float8_e4m3fn: the same OCP E4M3 byte

// Segment sums accumulate in float for 16- and 8-bit floats (fastscan::segment_acc_t; the .cu
// files check that the two agree).
template <class T>
using seg_acc_t = std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
                                         std::is_same_v<T, fp8>,
                                     float, T>;

// Every call is two-phase: a null `temp` writes the temp size to `temp_bytes` (host only, no
// launch); otherwise it launches on `stream`.

// cummax / cummin with torch's tie rule (the most recent index) and int64 indices.
template <class T>
cudaError_t cummax(void* temp, std::size_t& temp_bytes, const T* in, T* values, std::int64_t* indices, Shape3 shape,
                   cudaStream_t stream);
template <class T>
cudaError_t cummin(void* temp, std::size_t& temp_bytes, const T* in, T* values, std::int64_t* indices, Shape3 shape,
                   cudaStream_t stream);

// Inclusive sums of T into Out (int64 for integers and bool, T for floats).
template <class T, class Out>
cudaError_t cumsum(void* temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 shape, cudaStream_t stream);

// log(cumsum(exp(x))) as a scan with the log-add-exp operator (float and double).
template <class T>
cudaError_t logcumsumexp(void* temp, std::size_t& temp_bytes, const T* in, T* out, Shape3 shape, cudaStream_t stream);

// The gradient of cummax / cummin: grad_in[k] = the sum of grad over the run of positions whose
// index is k, in an order fixed by the plan (deterministic); 0 where no index points.
template <class G>
cudaError_t cummaxmin_backward(void* temp, std::size_t& temp_bytes, const G* grad, const std::int64_t* indices,
                               G* grad_in, Shape3 shape, cudaStream_t stream);

// Segmented operators over [S, C] features with int64 keys (segmented.cuh, bev.cuh); segment_sum
// writes at most M segments (its outputs' rows).
template <class T>
cudaError_t segment_sum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys,
                        std::int64_t* unique_keys, seg_acc_t<T>* sums, std::int64_t* num_segments, std::int64_t S,
                        std::int64_t C, std::int64_t M, cudaStream_t stream);
template <class T>
cudaError_t segmented_cumsum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys,
                             seg_acc_t<T>* out, std::int64_t S, std::int64_t C, cudaStream_t stream);
template <class T>
cudaError_t voxel_sum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys, seg_acc_t<T>* out,
                      std::int64_t S, std::int64_t C, cudaStream_t stream);
template <class T>
cudaError_t bev_pool(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys, seg_acc_t<T>* grid,
                     std::int64_t S, std::int64_t C, std::int64_t num_cells, cudaStream_t stream);
template <class T>
cudaError_t bev_pool_backward(void* temp, std::size_t& temp_bytes, const seg_acc_t<T>* grad_grid,
                              const std::int64_t* keys, T* grad_feats, std::int64_t S, std::int64_t C,
                              std::int64_t num_cells, cudaStream_t stream);

// Zeroes rows num_segments .. rows - 1 of segment_sum's outputs (the count read on the device), so
// that the [rows, C] outputs hold no uninitialized memory.
cudaError_t zero_segment_tail(std::int64_t* unique_keys, void* sums, std::size_t acc_bytes,
                              const std::int64_t* num_segments, std::int64_t S, std::int64_t C, cudaStream_t stream);

}  // namespace fastscan_ext
