"""The package's dtype table: one row per dtype, the kernels it has and the file each compiles in.

setup.py generates the kernel instantiations (csrc/generated/*.cu) and the host's dtype switches
(csrc/generated/dtypes.h) from it, and the fake kernels take their dtype lists from it, so adding
a dtype is adding a row (its C++ type must be one the library takes). Kernels that share code (the
same-width integers' extremes, which run one kernel over order keys) compile in one file.
"""
from collections import namedtuple

#: name: torch's; cpp: the C++ type; scalar: c10's ScalarType; units: operator -> the .cu file its
#: kernels compile in; native_fp8: kernels only in builds with FASTSCAN_NATIVE_FP8=1 (otherwise
#: the features are widened to float16 first).
Dtype = namedtuple("Dtype", "name cpp scalar units native_fp8", defaults=(False,))

_HALF = {"extreme": "extreme_half", "cumsum": "cumsum_float", "logcumsumexp": "logcumsumexp_half",
         "backward": "cummaxmin_backward", "segment_sum": "segment_sum", "segmented_cumsum": "segmented_cumsum_half",
         "bev": "bev"}
_FLOAT = {"extreme": "extreme_float", "cumsum": "cumsum_float", "backward": "cummaxmin_backward",
          "segment_sum": "segment_sum", "segmented_cumsum": "segmented_cumsum_float", "bev": "bev"}

DTYPES = (
    Dtype("bool", "bool", "Bool", {"extreme": "bool", "cumsum": "bool"}),
    Dtype("uint8", "std::uint8_t", "Byte", {"extreme": "extreme_8bit", "cumsum": "cumsum_8bit"}),
    Dtype("int8", "std::int8_t", "Char", {"extreme": "extreme_8bit", "cumsum": "cumsum_8bit"}),
    Dtype("int16", "std::int16_t", "Short", {"extreme": "extreme_int", "cumsum": "cumsum_int"}),
    Dtype("int32", "std::int32_t", "Int", {"extreme": "extreme_int", "cumsum": "cumsum_int"}),
    Dtype("int64", "std::int64_t", "Long", {"extreme": "extreme_int", "cumsum": "cumsum_int"}),
    Dtype("float16", "__half", "Half", _HALF),
    Dtype("bfloat16", "__nv_bfloat16", "BFloat16", _HALF),
    Dtype("float32", "float", "Float", {**_FLOAT, "logcumsumexp": "logcumsumexp_float"}),
    Dtype("float64", "double", "Double", {**_FLOAT, "logcumsumexp": "logcumsumexp_double"}),
    Dtype("float8_e4m3fn", "fastscan_ext::fp8", "Float8_e4m3fn",
          {"segment_sum": "fp8_segment_sum", "segmented_cumsum": "fp8_segmented_cumsum", "bev": "fp8_bev"},
          native_fp8=True),
)


def names(operator):
    """The names of the dtypes with kernels for `operator` ("extreme": cummax / cummin and cumsum's
    inputs; "backward": the gradients and logcumsumexp's inputs; "segment_sum": the features)."""
    return tuple(d.name for d in DTYPES if operator in d.units)
