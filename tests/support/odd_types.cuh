// Element types whose sizes are neither powers of two nor divisors of 16, with associative
// operators: the host tests plan them (host/index_math.cu), the GPU tests scan them
// (gpu/test_generic.cu). A named namespace: kernels instantiated on them keep external linkage.
#pragma once

#include <cuda_runtime.h>

namespace odd_sizes {

struct rgb {  // 3 bytes
  unsigned char r, g, b;
};
struct rgb_max {
  __host__ __device__ rgb operator()(const rgb& a, const rgb& b) const {
    return {a.r > b.r ? a.r : b.r, a.g > b.g ? a.g : b.g, a.b > b.b ? a.b : b.b};
  }
};
inline bool operator==(const rgb& x, const rgb& y) { return x.r == y.r && x.g == y.g && x.b == y.b; }

struct six {  // 6 bytes
  short v[3];
};
struct six_sum {
  __host__ __device__ six operator()(const six& a, const six& b) const {
    return {{static_cast<short>(a.v[0] + b.v[0]), static_cast<short>(a.v[1] + b.v[1]), static_cast<short>(a.v[2] + b.v[2])}};
  }
};
inline bool operator==(const six& x, const six& y) { return x.v[0] == y.v[0] && x.v[1] == y.v[1] && x.v[2] == y.v[2]; }

}  // namespace odd_sizes
