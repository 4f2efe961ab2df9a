//! \file extension.cuh
//! What code built on fastscan's entry points (a framework's operators, as the torch package's) may
//! use besides them: the per-type arithmetic the scans accumulate in, a division by a value fixed
//! for a launch, and the launch shape of an element-wise pass. These names stay as stable as the
//! entry points; `detail::` does not.
#pragma once

#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/numeric.cuh>
#include <fastscan/dispatch/dispatch.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace extension {

//! The type a value of T is summed and compared in (float for 16- and 8-bit floats).
template <class T>
using arith_t = detail::arith_t<T>;
//! A value in its arithmetic type, and an accumulator written as Out (16-bit floats round once).
using detail::convert_to;
using detail::to_arith;
//! n / d and n % d for n >= 0 by a multiply and a shift (d fixed for a launch).
using detail::divisor;
//! Blocks of elementwise_threads for an element-wise kernel over n items on the current device.
inline constexpr int elementwise_threads = policy::elementwise_threads;
inline unsigned elementwise_grid(std::int64_t n) { return detail::elementwise_grid(n); }

}  // namespace extension
FASTSCAN_NAMESPACE_END
