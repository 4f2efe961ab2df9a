// The gradient of cummax / cummin without atomics. Along the scan axis an element's index is
// either its predecessor's or its own position, so the indices form runs that each start at the
// element they point to. grad_in is a segmented sum of grad over those runs, written at each run's
// first element, and 0 elsewhere: one inclusive_scan over (grad, head) pairs whose output
// iterator writes only at run ends, summed in an order fixed by the plan (deterministic).
#pragma once

#include "../kernels.h"

#include <fastscan/extension.cuh>
#include <fastscan/inclusive_scan.cuh>

#include <cassert>
#include <iterator>

// A device-side assert that NDEBUG leaves in, as torch's CUDA_KERNEL_ASSERT: the launch fails with
// cudaErrorAssert and torch raises "device-side assert triggered" (the context is lost, as there).
#define FASTSCAN_EXT_DEVICE_ASSERT(cond)                  \
  do {                                                     \
    if (!(cond)) {                                         \
      __assert_fail(#cond, __FILE__, __LINE__, __func__);  \
    }                                                      \
  } while (0)

namespace fastscan_ext {
namespace fs = FASTSCAN_NAMESPACE;
namespace fx = FASTSCAN_NAMESPACE::extension;
namespace impl {

template <class G>
using grad_acc_t = fx::arith_t<G>;

// Position of a flat element along the scan axis of [outer, len, inner].
struct axis_position {
  fx::divisor by_inner;
  fx::divisor by_len;
  __host__ __device__ std::int64_t operator()(std::int64_t flat) const { return by_len.mod(by_inner.div(flat)); }
};

// (grad, head) pairs: an element heads a run when its index is its own position.
template <class G>
struct run_input {
  using value_type = fs::flagged<grad_acc_t<G>, bool>;
  using difference_type = std::int64_t;
  using pointer = const value_type*;
  using reference = value_type;
  using iterator_category = std::random_access_iterator_tag;
  const G* grad;
  const std::int64_t* indices;
  axis_position along;
  std::int64_t pos = 0;

  __host__ __device__ value_type operator[](std::int64_t n) const {
    const std::int64_t flat = pos + n;
    return {fx::to_arith(grad[flat]), indices[flat] == along(flat)};
  }
  __host__ __device__ value_type operator*() const { return (*this)[0]; }
  __host__ __device__ run_input operator+(std::int64_t n) const {
    run_input r = *this;
    r.pos += n;
    return r;
  }
};

// Takes each element's running fold: elements no index points to get 0, and a run's last element
// writes the run's sum to the run's first.
template <class G>
struct run_output {
  using acc_t = grad_acc_t<G>;
  G* grad_in;
  const std::int64_t* indices;
  axis_position along;
  std::int64_t len;
  std::int64_t inner;
  std::int64_t pos = 0;

  __host__ __device__ void write(std::int64_t flat, const acc_t& sum) const {
    const std::int64_t k = along(flat);
    const std::int64_t own = indices[flat];
    // The indices are the caller's: one outside [0, k] would send a sum outside this column of
    // grad_in (into another tensor). It fails the launch as torch's index checks do, writing nothing.
    const bool in_column = own >= 0 && own <= k;
    FASTSCAN_EXT_DEVICE_ASSERT(in_column && "cummaxmin_backward: each index must lie in [0, its position along dim]");
    if (!in_column) {
      return;
    }
    if (own != k) {
      grad_in[flat] = fx::convert_to<G>(acc_t{});
    }
    if (k + 1 == len || indices[flat + inner] == k + 1) {
      grad_in[flat - (k - own) * inner] = fx::convert_to<G>(sum);
    }
  }
  struct slot {
    const run_output* to;
    std::int64_t flat;
    __host__ __device__ void operator=(const fs::flagged<acc_t, bool>& fold) const { to->write(flat, fold.value); }
  };
  __host__ __device__ slot operator[](std::int64_t n) const { return {this, pos + n}; }
  __host__ __device__ slot operator*() const { return {this, pos}; }
  __host__ __device__ run_output operator+(std::int64_t n) const {
    run_output r = *this;
    r.pos += n;
    return r;
  }
};

}  // namespace impl

template <class G>
cudaError_t cummaxmin_backward(void* temp, std::size_t& temp_bytes, const G* grad, const std::int64_t* indices,
                               G* grad_in, Shape3 shape, cudaStream_t stream) {
  if (shape.outer < 0 || shape.len < 0 || shape.inner < 0) {
    return cudaErrorInvalidValue;
  }
  const impl::axis_position along{fx::divisor(shape.inner > 0 ? shape.inner : 1),
                          fx::divisor(shape.len > 0 ? shape.len : 1)};
  const impl::run_input<G> in{grad, indices, along};
  const impl::run_output<G> out{grad_in, indices, along, shape.len, shape.inner};
  return fs::inclusive_scan(temp, temp_bytes, in, out, fs::segmented_op<fs::sum_op>{}, shape, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_BACKWARD(G)                                                                       \
  template cudaError_t fastscan_ext::cummaxmin_backward<G>(void*, std::size_t&, const G*, const std::int64_t*, G*, \
                                                           fastscan_ext::Shape3, cudaStream_t);
