// x -> a * x + b (mod 2^32): composing such maps is associative but not commutative, so a scan of
// them shows any reordering (gpu/test_generic.cu, gpu/test_shard.cu). A named namespace: kernels
// instantiated on them keep external linkage.
#pragma once

#include <cstdint>

namespace affine_maps {

struct affine {
  std::uint32_t a, b;
};
struct compose_affine {
  __host__ __device__ affine operator()(const affine& earlier, const affine& later) const {
    return {later.a * earlier.a, later.a * earlier.b + later.b};
  }
};
inline bool operator==(const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; }

}  // namespace affine_maps
