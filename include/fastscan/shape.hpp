//! \file shape.hpp
//! The tensor view every fastscan entry point takes.
#pragma once

#include <fastscan/namespace.hpp>

#include <cstdint>

namespace FASTSCAN_NAMESPACE {

//! Row-major [outer, len, inner] view of a tensor; the scan runs along `len`. A scan along axis d
//! of a contiguous tensor of shape s is Shape3{prod(s[:d]), s[d], prod(s[d+1:])}.
struct Shape3 {
  std::int64_t outer;
  std::int64_t len;
  std::int64_t inner;
};

}  // namespace FASTSCAN_NAMESPACE
