//! \file stream_order.cuh
//! Programmatic dependent launch (sm_90 and later). dispatch launches the scan kernels with
//! programmatic stream serialization: the launch of a scan that follows another kernel in its
//! stream is prepared while that kernel runs, and its blocks start as soon as that kernel's last
//! block exits, not after a new launch once the grid is retired, so back-to-back calls lose most
//! of the launch gap. Such a kernel must not touch global memory before `griddepcontrol.wait`,
//! which returns once every grid it depends on has completed and its writes are visible. The
//! kernels never trigger their dependents early (`griddepcontrol.launch_dependents`): a dependent
//! grid starts only once every block of this one has exited (as fast as an early trigger or
//! faster, measured), and no waiting block holds a slot that a running look-back waits for.
//! Without the launch attribute (or before sm_90) the wait does nothing.
#pragma once

#include <fastscan/config.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The first statement of every kernel dispatch launches with the attribute.
FASTSCAN_DEVICE void enter_stream_order() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
