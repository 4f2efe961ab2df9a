// CUDA kernels of the scans: cummax, cummin, cumsum, logcumsumexp, the cummax / cummin gradient
// and the benchmark's library-only loop. Each is one dtype switch, one size query and one call.
#include "common.h"
#include "operators.h"

namespace fastscan_ext {

// cummax (is_max) or cummin of self along dim (wrapped) into values and indices of self's shape
// and of self's dtype and int64; outputs that are not contiguous take a copy.
void extreme_into(const Tensor& self, int64_t dim, bool is_max, const Tensor& values, const Tensor& indices) {
  const char* op = is_max ? "fastscan.cummax" : "fastscan.cummin";
  if (self.numel() == 0) {
    return;
  }
  if (!values.is_contiguous() || !indices.is_contiguous()) {
    const Tensor v = new_empty(self.sizes(), self.scalar_type(), self);
    const Tensor i = new_empty(self.sizes(), at::kLong, self);
    extreme_into(self, dim, is_max, v, i);
    values.copy_(v);
    indices.copy_(i);
    return;
  }
  const Tensor x = self.contiguous();
  const Shape3 shape = shape_along(x, dim);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  visit_scan_dtype(x.scalar_type(), [&](auto t) {
    using T = typename decltype(t)::type;
    two_phase(op, x, [&](void* temp, std::size_t& bytes) {
      return is_max ? cummax<T>(temp, bytes, cptr<T>(x), mptr<T>(values), mptr<int64_t>(indices), shape, stream)
                    : cummin<T>(temp, bytes, cptr<T>(x), mptr<T>(values), mptr<int64_t>(indices), shape, stream);
    });
  });
}

namespace {

// Checks the input, allocates the outputs and runs cummax (is_max) or cummin.
std::tuple<Tensor, Tensor> extreme(const Tensor& self, int64_t dim, bool is_max) {
  const char* op = is_max ? "fastscan.cummax" : "fastscan.cummin";
  check_cuda(self, op, "input");
  check_scan_dtype(self.scalar_type(), op);
  const int64_t d = wrap_dim(self, dim);
  const c10::cuda::CUDAGuard guard(self.device());
  Tensor values = new_empty(self.sizes(), self.scalar_type(), self);
  Tensor indices = new_empty(self.sizes(), at::kLong, self);
  extreme_into(self, d, is_max, values, indices);
  return {values, indices};
}

}  // namespace

TensorPair cummax_cuda(const Tensor& self, int64_t dim) { return extreme(self, dim, true); }
TensorPair cummin_cuda(const Tensor& self, int64_t dim) { return extreme(self, dim, false); }

// torch.cumsum's result type: int64 for integer and bool inputs unless `dtype` is given.
at::ScalarType cumsum_result_type(const Tensor& self, std::optional<at::ScalarType> dtype) {
  return dtype.value_or(at::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong : self.scalar_type());
}

// As torch: the input is cast to the result type, then summed in it. Integers are summed in int64
// and cast back, which wraps exactly as a sum in the narrower type would.
Tensor cumsum_cuda(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  const char* op = "fastscan.cumsum";
  check_cuda(self, op, "input");
  check_scan_dtype(self.scalar_type(), op);
  const at::ScalarType result = cumsum_result_type(self, dtype);
  TORCH_CHECK(is_scan_dtype(result) && result != at::kBool, op, ": dtype=", dtype_name(result),
              " is not supported (uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)");
  const int64_t d = wrap_dim(self, dim);
  const c10::cuda::CUDAGuard guard(self.device());
  const bool float_sum = is_float_dtype(result);
  Tensor x = self;
  if (float_sum ? x.scalar_type() != result : is_float_dtype(x.scalar_type())) {
    x = x.to(result);
  }
  x = x.contiguous();
  const at::ScalarType sum_type = float_sum ? result : at::kLong;
  Tensor out = new_empty(x.sizes(), sum_type, x);
  if (x.numel() > 0) {
    const Shape3 shape = shape_along(x, d);
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    visit_scan_dtype(x.scalar_type(), [&](auto t) {
      using T = typename decltype(t)::type;
      using Out = std::conditional_t<std::is_floating_point_v<T> || std::is_same_v<T, __half> ||
                                         std::is_same_v<T, __nv_bfloat16>,
                                     T, std::int64_t>;
      two_phase(op, x, [&](void* temp, std::size_t& bytes) {
        return cumsum<T, Out>(temp, bytes, cptr<T>(x), mptr<Out>(out), shape, stream);
      });
    });
  }
  return out.scalar_type() == result ? out : out.to(result);
}

// Every floating type scans natively (16-bit floats accumulate in float and round once, in the
// library): no conversion pass.
Tensor logcumsumexp_cuda(const Tensor& self, int64_t dim) {
  const char* op = "fastscan.logcumsumexp";
  check_cuda(self, op, "input");
  check_float_dtype(self.scalar_type(), op);
  const int64_t d = wrap_dim(self, dim);
  const c10::cuda::CUDAGuard guard(self.device());
  const Tensor x = self.contiguous();
  Tensor out = new_empty(x.sizes(), x.scalar_type(), x);
  if (x.numel() > 0) {
    const Shape3 shape = shape_along(x, d);
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    visit_float_dtype(x.scalar_type(), [&](auto t) {
      using T = typename decltype(t)::type;
      two_phase(op, x, [&](void* temp, std::size_t& bytes) {
        return logcumsumexp<T>(temp, bytes, cptr<T>(x), mptr<T>(out), shape, stream);
      });
    });
  }
  return out;
}

// grad_in of cummax / cummin from the forward's indices, without atomics (see kernels.h).
Tensor cummaxmin_backward_cuda(const Tensor& grad, const Tensor& indices, int64_t dim) {
  const char* op = "fastscan.cummaxmin_backward";
  check_cuda(grad, op, "grad");
  check_cuda(indices, op, "indices");
  check_same_device(grad, indices, op, "indices");
  check_float_dtype(grad.scalar_type(), op);
  TORCH_CHECK(indices.scalar_type() == at::kLong, op, ": indices must be torch.int64, got ",
              dtype_name(indices.scalar_type()));
  TORCH_CHECK(grad.sizes() == indices.sizes(), op, ": grad and indices must have one shape, got ",
              shape_str(grad.sizes()), " and ", shape_str(indices.sizes()));
  const int64_t d = wrap_dim(grad, dim);
  const c10::cuda::CUDAGuard guard(grad.device());
  const Tensor g = grad.contiguous();
  const Tensor idx = indices.contiguous();
  Tensor grad_in = new_empty(g.sizes(), g.scalar_type(), g);
  if (g.numel() == 0) {
    return grad_in;
  }
  const Shape3 shape = shape_along(g, d);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  visit_float_dtype(g.scalar_type(), [&](auto t) {
    using G = typename decltype(t)::type;
    two_phase(op, g, [&](void* temp, std::size_t& bytes) {
      return cummaxmin_backward<G>(temp, bytes, cptr<G>(g), cptr<int64_t>(idx), mptr<G>(grad_in), shape, stream);
    });
  });
  return grad_in;
}

// `iters` cummax calls of the library alone into the given outputs: what the operator costs
// beyond its kernel is the difference to `iters` operator calls.
void cummax_raw_bench_cuda(const Tensor& x, int64_t dim, const Tensor& values, const Tensor& indices, int64_t iters) {
  const char* op = "fastscan._cummax_raw_bench";
  check_cuda(x, op, "x");
  check_scan_dtype(x.scalar_type(), op);
  TORCH_CHECK(x.is_contiguous() && values.is_contiguous() && indices.is_contiguous(), op,
              ": x, values and indices must be contiguous");
  TORCH_CHECK(values.sizes() == x.sizes() && values.scalar_type() == x.scalar_type() &&
                  values.device() == x.device(),
              op, ": values must be like x");
  TORCH_CHECK(indices.sizes() == x.sizes() && indices.scalar_type() == at::kLong && indices.device() == x.device(),
              op, ": indices must be int64 and shaped like x");
  const c10::cuda::CUDAGuard guard(x.device());
  const Shape3 shape = shape_along(x, wrap_dim(x, dim));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  visit_scan_dtype(x.scalar_type(), [&](auto t) {
    using T = typename decltype(t)::type;
    std::size_t bytes = 0;
    check_ok(cummax<T>(nullptr, bytes, cptr<T>(x), mptr<T>(values), mptr<int64_t>(indices), shape, stream), op);
    const Tensor temp = new_empty({static_cast<int64_t>(bytes)}, at::kByte, x);
    for (int64_t i = 0; i < iters; ++i) {
      check_ok(cummax<T>(temp.mutable_data_ptr(), bytes, cptr<T>(x), mptr<T>(values), mptr<int64_t>(indices), shape,
                         stream),
               op);
    }
  });
}

}  // namespace fastscan_ext
