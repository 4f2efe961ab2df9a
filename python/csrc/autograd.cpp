// Autograd kernels (DispatchKey::Autograd, so every backend and fake / meta tensors get them). In
// C++ rather than through torch.library.register_autograd: a Python autograd kernel runs on every
// call, grad or not, and costs microseconds where the scans take a few. Without grad the kernels
// go straight to the backend; backward formulas call the operators through the dispatcher, so
// torch.compile traces them as operators.
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include "operators.h"

namespace fastscan_ext {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <class Sig>
c10::TypedOperatorHandle<Sig> find_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}

using ExtremeSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t);
using CumsumSig = Tensor(const Tensor&, int64_t, std::optional<at::ScalarType>);
using ScanSig = Tensor(const Tensor&, int64_t);
using BackwardSig = Tensor(const Tensor&, const Tensor&, int64_t);
using SegmentSumSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, const Tensor&, std::optional<int64_t>);
using RowsSig = Tensor(const Tensor&, const Tensor&);
using BevSig = Tensor(const Tensor&, const Tensor&, int64_t);
using BevBackwardSig = Tensor(const Tensor&, const Tensor&, at::ScalarType);

// Operator handles, looked up once.
const auto& cummax_op() { static const auto h = find_op<ExtremeSig>("fastscan::cummax"); return h; }
const auto& cummin_op() { static const auto h = find_op<ExtremeSig>("fastscan::cummin"); return h; }
const auto& cumsum_op() { static const auto h = find_op<CumsumSig>("fastscan::cumsum"); return h; }
const auto& logcumsumexp_op() { static const auto h = find_op<ScanSig>("fastscan::logcumsumexp"); return h; }
const auto& cummaxmin_backward_op() {
  static const auto h = find_op<BackwardSig>("fastscan::cummaxmin_backward");
  return h;
}
const auto& segment_sum_op() { static const auto h = find_op<SegmentSumSig>("fastscan::segment_sum"); return h; }
const auto& segmented_cumsum_op() {
  static const auto h = find_op<RowsSig>("fastscan::segmented_cumsum");
  return h;
}
const auto& voxel_sum_op() { static const auto h = find_op<RowsSig>("fastscan::voxel_sum"); return h; }
const auto& bev_pool_op() { static const auto h = find_op<BevSig>("fastscan::bev_pool"); return h; }
const auto& bev_pool_backward_op() {
  static const auto h = find_op<BevBackwardSig>("fastscan::bev_pool_backward");
  return h;
}

bool needs_grad(const Tensor& x) { return at::GradMode::is_enabled() && x.requires_grad(); }

// A Function's outputs as the operator returns them.
template <class Out>
Out outputs_of(const variable_list& v) {
  if constexpr (std::is_same_v<Out, Tensor>) {
    return v[0];
  } else if constexpr (std::tuple_size_v<Out> == 2) {
    return {v[0], v[1]};
  } else {
    return {v[0], v[1], v[2]};
  }
}
template <class Out>
Out outputs_of(Tensor t) {
  return t;
}

// Every operator's Autograd kernel: its autograd Function when the input takes a gradient, else
// the backend kernel below autograd (no graph, nothing saved).
template <class Fn, class Out, class Op, class... Args>
Out autograd_kernel(const Op& op, bool grad, const Tensor& x, const Args&... args) {
  if (!grad) {
    at::AutoDispatchBelowADInplaceOrView below;
    return op.call(x, args...);
  }
  return outputs_of<Out>(Fn::apply(x, args...));
}

// Reverse scan along dim through a forward one (a reverse mode in the library would save the flips).
template <class Scan>
Tensor reversed(const Tensor& x, int64_t dim, Scan&& scan) {
  if (x.dim() == 0) {
    return scan(x);
  }
  return scan(x.flip({dim})).flip({dim});
}

// ---- cummax / cummin: the gradient goes to the indices, summed without atomics. The backward op
// is linear in its gradient, so its own gradient (double backward) is the adjoint: a gather at the
// indices.

struct ExtremeBackwardFn : torch::autograd::Function<ExtremeBackwardFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& grad, const Tensor& indices, int64_t dim) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["dim"] = dim;
    ctx->save_for_backward({indices});
    return cummaxmin_backward_op().call(grad, indices, dim);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor(), Tensor()};
    }
    const Tensor indices = ctx->get_saved_variables()[0];
    return {grads[0].gather(ctx->saved_data["dim"].toInt(), indices), Tensor(), Tensor()};
  }
};

template <bool IsMax>
struct ExtremeFn : torch::autograd::Function<ExtremeFn<IsMax>> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x, int64_t dim) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [values, indices] = (IsMax ? cummax_op() : cummin_op()).call(x, dim);
    ctx->saved_data["dim"] = dim;
    ctx->save_for_backward({indices});
    ctx->mark_non_differentiable({indices});
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor& grad = grads[0];
    if (!grad.defined()) {
      return {Tensor(), Tensor()};
    }
    const Tensor indices = ctx->get_saved_variables()[0];
    return {ExtremeBackwardFn::apply(grad, indices, ctx->saved_data["dim"].toInt()), Tensor()};
  }
};


// ---- cumsum: a reverse cumsum of the gradient, in the input's dtype (as torch).

struct CumsumFn : torch::autograd::Function<CumsumFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, int64_t dim, std::optional<at::ScalarType> dtype) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["dim"] = at::maybe_wrap_dim(dim, x.dim());
    ctx->saved_data["dtype"] = x.scalar_type();
    return cumsum_op().call(x, dim, dtype);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor(), Tensor()};
    }
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    const Tensor grad = grads[0].to(dtype);
    const int64_t dim = ctx->saved_data["dim"].toInt();
    return {reversed(grad, dim, [&](const Tensor& g) { return cumsum_op().call(g, dim, std::nullopt); }), Tensor(),
            Tensor()};
  }
};


// ---- logcumsumexp: d out_i / d x_j = exp(x_j - out_i) for j <= i. The positive and negative
// parts of grad are summed apart in the log domain, each a reverse logcumsumexp, so nothing
// overflows.

struct LogcumsumexpFn : torch::autograd::Function<LogcumsumexpFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, int64_t dim) {
    at::AutoDispatchBelowADInplaceOrView below;
    Tensor out = logcumsumexp_op().call(x, dim);
    ctx->saved_data["dim"] = at::maybe_wrap_dim(dim, x.dim());
    ctx->save_for_backward({x, out});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor& grad = grads[0];
    if (!grad.defined()) {
      return {Tensor(), Tensor()};
    }
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& out = saved[1];
    if (grad.dim() == 0) {
      return {grad, Tensor()};  // out = x (as torch: an infinite x passes its gradient through)
    }
    const int64_t dim = ctx->saved_data["dim"].toInt();
    const Tensor floor = at::full({}, -std::numeric_limits<double>::infinity(), grad.options());
    const Tensor log_abs = grad.abs().log();
    const auto part = [&](const Tensor& mask) {
      const Tensor log_grad = at::where(mask, log_abs, floor) - out;
      const Tensor s = reversed(log_grad, dim, [&](const Tensor& t) { return logcumsumexp_op().call(t, dim); });
      return (s + x).exp();
    };
    return {part(grad > 0) - part(grad < 0), Tensor()};
  }
};


// ---- segmented operators: the gradients are again segmented sums or gathers of the keys' runs.

// For segment_sum: row i's segment is the number of key changes before it (sizes may be symbolic
// under torch.compile, so no size is read here).
Tensor segment_ids(const Tensor& keys) {
  const Tensor changes = keys.slice(0, 1).ne(keys.slice(0, 0, -1)).to(at::kLong);
  const Tensor ids = at::cat({at::zeros({1}, changes.options()), cumsum_op().call(changes, 0, std::nullopt)});
  return ids.narrow_symint(0, 0, keys.sym_size(0));  // no rows: no ids
}

struct SegmentSumFn : torch::autograd::Function<SegmentSumFn> {
  static variable_list forward(AutogradContext* ctx, const Tensor& feats, const Tensor& keys,
                               std::optional<int64_t> max_segments) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [sums, unique_keys, num_segments] = segment_sum_op().call(feats, keys, max_segments);
    ctx->saved_data["dtype"] = feats.scalar_type();
    ctx->saved_data["rows"] = max_segments.has_value() ? c10::IValue(*max_segments) : c10::IValue();
    ctx->save_for_backward({keys});
    ctx->mark_non_differentiable({unique_keys, num_segments});
    return {sums, unique_keys, num_segments};
  }
  // Each row gets its segment's gradient; a segment past max_segments rows was dropped: 0.
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const Tensor& grad_sums = grads[0];
    const Tensor keys = ctx->get_saved_variables()[0];
    if (!grad_sums.defined()) {
      return {Tensor(), Tensor(), Tensor()};
    }
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    Tensor ids = segment_ids(keys);
    Tensor rows = grad_sums;
    if (!ctx->saved_data["rows"].isNone()) {
      const int64_t M = ctx->saved_data["rows"].toInt();
      rows = at::cat({grad_sums, at::zeros({1, grad_sums.size(1)}, grad_sums.options())});
      ids = ids.clamp_max(M);
    }
    return {rows.index_select(0, ids).to(dtype), Tensor(), Tensor()};
  }
};

struct SegmentedCumsumFn : torch::autograd::Function<SegmentedCumsumFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& feats, const Tensor& keys) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["dtype"] = feats.scalar_type();
    ctx->save_for_backward({keys});
    return segmented_cumsum_op().call(feats, keys);
  }
  // Runs of equal keys stay runs when both are reversed: a reverse segmented cumsum.
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor()};
    }
    const Tensor keys = ctx->get_saved_variables()[0];
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    const Tensor g = segmented_cumsum_op().call(grads[0].flip({0}), keys.flip({0})).flip({0});
    return {g.to(dtype), Tensor()};
  }
};

// voxel_sum is out = A feats with A symmetric (A[i, j] = keys[i] == keys[j]): its own gradient.
struct VoxelSumFn : torch::autograd::Function<VoxelSumFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& feats, const Tensor& keys) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["dtype"] = feats.scalar_type();
    ctx->save_for_backward({keys});
    return voxel_sum_op().call(feats, keys);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor()};
    }
    const Tensor keys = ctx->get_saved_variables()[0];
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    return {voxel_sum_op().call(grads[0], keys).to(dtype), Tensor()};
  }
};

// bev_pool_backward gathers each point's cell row: its adjoint (double backward) is bev_pool itself.
struct BevPoolBackwardFn : torch::autograd::Function<BevPoolBackwardFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& grad_grid, const Tensor& keys, at::ScalarType dtype) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["cells"] = grad_grid.size(0);
    ctx->save_for_backward({keys});
    return bev_pool_backward_op().call(grad_grid, keys, dtype);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor(), Tensor()};
    }
    const Tensor keys = ctx->get_saved_variables()[0];
    return {bev_pool_op().call(grads[0], keys, ctx->saved_data["cells"].toInt()), Tensor(), Tensor()};
  }
};

struct BevPoolFn : torch::autograd::Function<BevPoolFn> {
  static Tensor forward(AutogradContext* ctx, const Tensor& feats, const Tensor& keys, int64_t num_cells) {
    at::AutoDispatchBelowADInplaceOrView below;
    ctx->saved_data["dtype"] = feats.scalar_type();
    ctx->save_for_backward({keys});
    return bev_pool_op().call(feats, keys, num_cells);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) {
      return {Tensor(), Tensor(), Tensor()};
    }
    const Tensor keys = ctx->get_saved_variables()[0];
    const auto dtype = ctx->saved_data["dtype"].toScalarType();
    return {BevPoolBackwardFn::apply(grads[0], keys, dtype), Tensor(), Tensor()};
  }
};


}  // namespace

// The kernels the registry (ops.cpp) names.
TensorPair cummax_autograd(const Tensor& x, int64_t dim) {
  return autograd_kernel<ExtremeFn<true>, TensorPair>(cummax_op(), needs_grad(x), x, dim);
}
TensorPair cummin_autograd(const Tensor& x, int64_t dim) {
  return autograd_kernel<ExtremeFn<false>, TensorPair>(cummin_op(), needs_grad(x), x, dim);
}
// An integer or bool result (dtype=) of an input that needs a gradient is an error, as in torch.
Tensor cumsum_autograd(const Tensor& x, int64_t dim, std::optional<at::ScalarType> dtype) {
  const bool grad = needs_grad(x);
  TORCH_CHECK(!grad || !dtype || at::isFloatingType(*dtype), "Autograd not support dtype: ", *dtype);
  return autograd_kernel<CumsumFn, Tensor>(cumsum_op(), grad, x, dim, dtype);
}
Tensor logcumsumexp_autograd(const Tensor& x, int64_t dim) {
  return autograd_kernel<LogcumsumexpFn, Tensor>(logcumsumexp_op(), needs_grad(x), x, dim);
}
SegmentSums segment_sum_autograd(const Tensor& feats, const Tensor& keys, std::optional<int64_t> max_segments) {
  return autograd_kernel<SegmentSumFn, SegmentSums>(segment_sum_op(), needs_grad(feats), feats, keys, max_segments);
}
Tensor segmented_cumsum_autograd(const Tensor& feats, const Tensor& keys) {
  return autograd_kernel<SegmentedCumsumFn, Tensor>(segmented_cumsum_op(), needs_grad(feats), feats, keys);
}
Tensor voxel_sum_autograd(const Tensor& feats, const Tensor& keys) {
  return autograd_kernel<VoxelSumFn, Tensor>(voxel_sum_op(), needs_grad(feats), feats, keys);
}
Tensor bev_pool_autograd(const Tensor& feats, const Tensor& keys, int64_t num_cells) {
  return autograd_kernel<BevPoolFn, Tensor>(bev_pool_op(), needs_grad(feats), feats, keys, num_cells);
}

}  // namespace fastscan_ext
