// One header tree's side of the regression gate: compiled once per tree, each under its own
// -DFASTSCAN_NAMESPACE and -DGATE_ENTRY (the function's name), so two trees link into one binary.
#include <fastscan/scan.cuh>
// Trees from before the segmented scans (and before version.cuh, whose cummax took the tie at run
// time) run the scans only: their segmented rows show "-".
#if __has_include(<fastscan/segmented.cuh>)
#include <fastscan/bev.cuh>
#include <fastscan/segmented.cuh>
#define GATE_SEGMENTED 1
#else
#define GATE_SEGMENTED 0
#endif

#include "gate_cases.hpp"

#ifndef GATE_ENTRY
#error "GATE_ENTRY names this tree's entry function"
#endif

namespace {

namespace fs = FASTSCAN_NAMESPACE;
using gate::buffers;
using gate::gate_case;

template <class T>
using acc_t = std::conditional_t<std::is_same_v<T, __half>, float, T>;

template <class T>
cudaError_t cumsum(const gate_case& c, void* temp, std::size_t& bytes, const buffers& b, cudaStream_t s) {
  return fs::cumsum(temp, bytes, static_cast<const T*>(b.in), static_cast<T*>(b.out), fs::Shape3{c.outer, c.len, c.inner},
                    s);
}
template <class T>
cudaError_t cummax(const gate_case& c, void* temp, std::size_t& bytes, const buffers& b, cudaStream_t s) {
#if __has_include(<fastscan/version.cuh>)
  return fs::cummax<T, std::int64_t, fs::Tie::last>(temp, bytes, static_cast<const T*>(b.in), static_cast<T*>(b.out),
                                                    b.indices, fs::Shape3{c.outer, c.len, c.inner}, s);
#else
  return fs::cummax(temp, bytes, static_cast<const T*>(b.in), static_cast<T*>(b.out), b.indices,
                    fs::Shape3{c.outer, c.len, c.inner}, s, fs::Tie::last);
#endif
}
#if GATE_SEGMENTED
template <class T>
cudaError_t segment_sum(const gate_case& c, void* temp, std::size_t& bytes, const buffers& b, cudaStream_t s) {
  return fs::segment_sum<T, std::int64_t, acc_t<T>>(temp, bytes, static_cast<const T*>(b.in), b.keys, b.unique,
                                                    static_cast<acc_t<T>*>(b.out), b.count, c.len, c.inner, s);
}
template <class T>
cudaError_t segmented_cumsum(const gate_case& c, void* temp, std::size_t& bytes, const buffers& b, cudaStream_t s) {
  return fs::segmented_cumsum<T, std::int64_t, acc_t<T>>(temp, bytes, static_cast<const T*>(b.in), b.keys,
                                                         static_cast<acc_t<T>*>(b.out), c.len, c.inner, s);
}
template <class T>
cudaError_t bev_pool(const gate_case& c, void* temp, std::size_t& bytes, const buffers& b, cudaStream_t s) {
  return fs::bev_pool<T, std::int64_t, acc_t<T>>(temp, bytes, static_cast<const T*>(b.in), b.keys,
                                                 static_cast<acc_t<T>*>(b.out), c.len, c.inner, c.segments, s);
}
#endif

//! The entry of each (op, type) pair of the headline set: only those are instantiated.
gate::entry_fn entry_of(const gate_case& c) {
  using gate::dtype;
  const dtype t = c.type;
  switch (c.what) {
    case gate::op::cumsum:
      return t == dtype::u8    ? cumsum<std::uint8_t>
             : t == dtype::f16 ? cumsum<__half>
             : t == dtype::f32 ? cumsum<float>
                               : cumsum<std::int64_t>;
    case gate::op::cummax:
      return t == dtype::f32 ? cummax<float> : t == dtype::i64 ? cummax<std::int64_t> : nullptr;
#if GATE_SEGMENTED
    case gate::op::segment_sum:
      return t == dtype::f32 ? segment_sum<float> : t == dtype::f16 ? segment_sum<__half> : nullptr;
    case gate::op::segmented_cumsum:
      return t == dtype::f32 ? segmented_cumsum<float> : nullptr;
    case gate::op::bev_pool:
      return t == dtype::f16 ? bev_pool<__half> : nullptr;
#else
    default:
      return nullptr;
#endif
  }
  return nullptr;
}

}  // namespace

cudaError_t GATE_ENTRY(const gate::gate_case& c, void* temp, std::size_t& bytes, const gate::buffers& b,
                       cudaStream_t s) {
  const gate::entry_fn f = entry_of(c);
  return f == nullptr ? cudaErrorInvalidValue : f(c, temp, bytes, b, s);
}
