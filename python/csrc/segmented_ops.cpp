// CUDA kernels of the segmented operators over [S, C] features: segment_sum, segmented_cumsum,
// voxel_sum, bev_pool and bev_pool_backward. Keys are int64 in the library; int32 keys are
// widened first (one pass over the keys; each native key type would add its own kernels to build),
// and so are fp8 features to float16 unless the build has their kernels (common.h).
#include "common.h"
#include "operators.h"

namespace fastscan_ext {
namespace {

void check_feature_dtype(at::ScalarType t, const char* op, const char* what) {
  TORCH_CHECK(is_feature_dtype(t), op, ": ", what, " dtype ", dtype_name(t), " is not supported (",
              FASTSCAN_EXT_FEATURE_DTYPE_NAMES, ")");
}

// The accumulator and output type of the sums: float for 16- and 8-bit floats.
at::ScalarType acc_type(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

void check_keys(const Tensor& keys, int64_t S, const char* op) {
  TORCH_CHECK(keys.dim() == 1 && keys.size(0) == S, op, ": keys must be 1-D with ", std::to_string(S),
              " entries (one per feature row), got shape ", shape_str(keys.sizes()));
  TORCH_CHECK(keys.scalar_type() == at::kLong || keys.scalar_type() == at::kInt, op,
              ": keys must be torch.int32 or torch.int64, got ", dtype_name(keys.scalar_type()));
}

struct Rows {
  Tensor feats;  // [S, C], contiguous
  Tensor keys;   // [S] int64, contiguous
  int64_t S;
  int64_t C;
};

void check_rows(const Tensor& feats, const Tensor& keys, const char* op) {
  check_cuda(feats, op, "feats");
  check_cuda(keys, op, "keys");
  check_same_device(feats, keys, op, "keys");
  TORCH_CHECK(feats.dim() == 2, op, ": feats must be 2-D [S, C], got shape ", shape_str(feats.sizes()));
  check_feature_dtype(feats.scalar_type(), op, "feats");
  check_keys(keys, feats.size(0), op);
}

// Checked inputs, made contiguous (keys int64) under the device guard the caller holds.
Rows rows_of(const Tensor& feats, const Tensor& keys) {
  const bool widen = !native_fp8 && feats.scalar_type() == at::kFloat8_e4m3fn;
  return {(widen ? feats.to(at::kHalf) : feats).contiguous(), keys.to(at::kLong).contiguous(), feats.size(0),
          feats.size(1)};
}

// [S, C] accumulators from one library call per feature type: call(tag<T>, temp, bytes, feats,
// keys, out, S, C, stream), which takes `bytes` by reference (the size query writes it).
template <class Call>
Tensor rows_out(const char* op, const Tensor& feats, const Tensor& keys, Call&& call) {
  check_rows(feats, keys, op);
  const c10::cuda::CUDAGuard guard(feats.device());
  const Rows r = rows_of(feats, keys);
  Tensor out = at::empty({r.S, r.C}, r.feats.options().dtype(acc_type(feats.scalar_type())));
  if (out.numel() > 0) {
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    visit_feature_dtype(r.feats.scalar_type(), [&](auto t) {
      using T = typename decltype(t)::type;
      two_phase(op, r.feats, [&](void* temp, std::size_t& bytes) {
        return call(t, temp, bytes, cptr<T>(r.feats), cptr<int64_t>(r.keys), mptr<seg_acc_t<T>>(out), r.S, r.C, stream);
      });
    });
  }
  return out;
}

}  // namespace

// [M, C] sums of the first M segments (M = max_segments, or S: every segment fits), their keys and
// the count of all segments.
SegmentSums segment_sum_cuda(const Tensor& feats, const Tensor& keys,
                                                    std::optional<int64_t> max_segments) {
  const char* op = "fastscan.segment_sum";
  check_rows(feats, keys, op);
  TORCH_CHECK(feats.size(1) > 0 || feats.size(0) == 0, op, ": feats must have at least one channel, got shape ",
              shape_str(feats.sizes()));
  TORCH_CHECK(max_segments.value_or(0) >= 0, op, ": max_segments must be >= 0, got ",
              std::to_string(max_segments.value_or(0)));
  const c10::cuda::CUDAGuard guard(feats.device());
  const Rows r = rows_of(feats, keys);
  const int64_t M = max_segments.value_or(r.S);
  const auto acc = acc_type(feats.scalar_type());
  Tensor unique_keys = at::empty({M}, r.keys.options());
  Tensor sums = at::empty({M, r.C}, r.feats.options().dtype(acc));
  Tensor num_segments = at::empty({1}, r.keys.options());
  if (r.S == 0) {
    unique_keys.zero_();
    sums.zero_();
    num_segments.zero_();
  } else {
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    visit_feature_dtype(r.feats.scalar_type(), [&](auto t) {
      using T = typename decltype(t)::type;
      using A = seg_acc_t<T>;
      two_phase(op, r.feats, [&](void* temp, std::size_t& bytes) {
        return segment_sum<T>(temp, bytes, cptr<T>(r.feats), cptr<int64_t>(r.keys), mptr<int64_t>(unique_keys),
                              mptr<A>(sums), mptr<int64_t>(num_segments), r.S, r.C, M, stream);
      });
      check_ok(zero_segment_tail(mptr<int64_t>(unique_keys), sums.mutable_data_ptr(), sizeof(A),
                                 cptr<int64_t>(num_segments), M, r.C, stream),
               op);
    });
  }
  return {sums, unique_keys.to(keys.scalar_type()), num_segments};
}

Tensor segmented_cumsum_cuda(const Tensor& feats, const Tensor& keys) {
  return rows_out("fastscan.segmented_cumsum", feats, keys,
                  [](auto t, auto&&... args) { return segmented_cumsum<typename decltype(t)::type>(args...); });
}

Tensor voxel_sum_cuda(const Tensor& feats, const Tensor& keys) {
  return rows_out("fastscan.voxel_sum", feats, keys,
                  [](auto t, auto&&... args) { return voxel_sum<typename decltype(t)::type>(args...); });
}

Tensor bev_pool_cuda(const Tensor& feats, const Tensor& keys, int64_t num_cells) {
  const char* op = "fastscan.bev_pool";
  TORCH_CHECK(num_cells > 0, op, ": num_cells must be positive, got ", std::to_string(num_cells));
  check_rows(feats, keys, op);
  const c10::cuda::CUDAGuard guard(feats.device());
  const Rows r = rows_of(feats, keys);
  const auto options = r.feats.options().dtype(acc_type(feats.scalar_type()));
  if (r.S == 0 || r.C == 0) {
    return at::zeros({num_cells, r.C}, options);
  }
  Tensor grid = at::empty({num_cells, r.C}, options);  // the library zeroes the empty cells
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  visit_feature_dtype(r.feats.scalar_type(), [&](auto t) {
    using T = typename decltype(t)::type;
    two_phase(op, r.feats, [&](void* temp, std::size_t& bytes) {
      return bev_pool<T>(temp, bytes, cptr<T>(r.feats), cptr<int64_t>(r.keys), mptr<seg_acc_t<T>>(grid), r.S, r.C,
                         num_cells, stream);
    });
  });
  return grid;
}

// grad_feats[i] = grad_grid[keys[i]] (0 for keys outside the grid), in the features' dtype.
Tensor bev_pool_backward_cuda(const Tensor& grad_grid, const Tensor& keys, at::ScalarType dtype) {
  const char* op = "fastscan.bev_pool_backward";
  check_cuda(grad_grid, op, "grad_grid");
  check_cuda(keys, op, "keys");
  check_same_device(grad_grid, keys, op, "keys");
  check_feature_dtype(dtype, op, "feature");
  TORCH_CHECK(grad_grid.dim() == 2 && grad_grid.size(0) > 0, op,
              ": grad_grid must be 2-D [num_cells, C] with num_cells > 0, got shape ", shape_str(grad_grid.sizes()));
  TORCH_CHECK(grad_grid.scalar_type() == acc_type(dtype), op, ": grad_grid must be ", dtype_name(acc_type(dtype)),
              " for features of ", dtype_name(dtype), ", got ", dtype_name(grad_grid.scalar_type()));
  check_keys(keys, keys.dim() == 1 ? keys.size(0) : -1, op);
  const c10::cuda::CUDAGuard guard(grad_grid.device());
  const int64_t S = keys.size(0);
  const int64_t C = grad_grid.size(1);
  const Tensor g = grad_grid.contiguous();
  const Tensor k = keys.to(at::kLong).contiguous();
  // fp8 features without kernels of their own: the rows gathered in float32 (exact), rounded once.
  const bool narrow = !native_fp8 && dtype == at::kFloat8_e4m3fn;
  Tensor grad_feats = at::empty({S, C}, g.options().dtype(narrow ? at::kFloat : dtype));
  if (grad_feats.numel() > 0) {
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    visit_feature_dtype(grad_feats.scalar_type(), [&](auto t) {
      using T = typename decltype(t)::type;
      two_phase(op, g, [&](void* temp, std::size_t& bytes) {
        return bev_pool_backward<T>(temp, bytes, cptr<seg_acc_t<T>>(g), cptr<int64_t>(k), mptr<T>(grad_feats), S, C,
                                    g.size(0), stream);
      });
    });
  }
  return narrow ? grad_feats.to(dtype) : grad_feats;
}

}  // namespace fastscan_ext
