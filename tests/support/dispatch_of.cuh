// The solver's inputs and the launch of one problem type, as dispatch (dispatch/dispatch.cuh) makes
// them, for tests that plan or launch a problem directly.
#pragma once

#include <fastscan/dispatch/dispatch.cuh>

namespace fstest {

template <class Problem>
struct dispatch_of {
  static fastscan::detail::scan_types types() { return fastscan::detail::problem_kernels<Problem>::types(); }
  static cudaError_t solve(fastscan::Shape3 s, fastscan::detail::plan& p) { return fastscan::detail::solve(s, types(), p); }
  static cudaError_t launch(const fastscan::detail::plan& p, void* temp, const Problem& prob, cudaStream_t stream) {
    return fastscan::detail::launch(p, temp, prob, stream);
  }
};

}  // namespace fstest
