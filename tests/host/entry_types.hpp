// The scan_types that dispatch passes the solver for each entry point's problem (dispatch<P>::types()),
// gathered by index_math.cu, whose device headers the host compiler cannot read.
#pragma once

#include <fastscan/plan/plan.hpp>

#include <string>
#include <vector>

namespace fstest {

struct entry_types {
  std::string name;  //!< e.g. "cumsum int32 -> int64", "cummax float32"
  fastscan::detail::scan_types types;
};

//! Every entry point's problem on every dtype the tests sweep, and the generic scans of the tests.
std::vector<entry_types> entry_point_types();

}  // namespace fstest
