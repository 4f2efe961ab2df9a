//! \file numeric.cuh
//! Per-type helpers every operator needs: NaN tests, ordering and conversion, written so that they
//! also compile under PyTorch's -D__CUDA_NO_HALF_OPERATORS__ / -D__CUDA_NO_HALF_CONVERSIONS__.
#pragma once

#include <fastscan/config.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

//! The 8-bit float features are read only (summed in float).
template <class T>
inline constexpr bool is_fp8_v = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

//! bool as frameworks store it: one byte, true when it is not 0. A C++ bool holding another byte is
//! undefined (loads may keep the byte, or only its low bit), and torch reads any nonzero byte as
//! true, so the entry points read and write bool arrays as these (stored_t).
struct bool_byte {
  unsigned char byte;
};
template <class T>
using stored_t = std::conditional_t<std::is_same_v<T, bool>, bool_byte, T>;

//! Arithmetic type a value of T is compared or summed in: float for the 16- and 8-bit floats, bool
//! for bool bytes, T otherwise.
template <class T>
using arith_t = std::conditional_t<is_half_v<T> || is_fp8_v<T>, float, std::conditional_t<std::is_same_v<T, bool_byte>, bool, T>>;

template <class T>
FASTSCAN_HD arith_t<T> to_arith(const T& v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else if constexpr (is_fp8_v<T>) {
    return __half2float(__half(__nv_cvt_fp8_to_halfraw(v.__x, std::is_same_v<T, __nv_fp8_e4m3> ? __NV_E4M3 : __NV_E5M2)));
  } else if constexpr (std::is_same_v<T, bool_byte>) {
    return v.byte != 0;
  } else {
    return v;
  }
}

//! A value as it is compared and written: a bool byte as 0 or 1, anything else as it is.
template <class T>
FASTSCAN_HD T canonical(const T& v) {
  if constexpr (std::is_same_v<T, bool_byte>) {
    return bool_byte{static_cast<unsigned char>(v.byte != 0)};
  } else {
    return v;
  }
}

//! Converts an accumulator to an output type; 16-bit float outputs round to nearest.
template <class Out, class A>
FASTSCAN_HD Out convert_to(const A& v) {
  if constexpr (std::is_same_v<Out, A>) {
    return v;
  } else if constexpr (std::is_same_v<Out, __half>) {
    return __float2half_rn(static_cast<float>(to_arith(v)));
  } else if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(to_arith(v)));
  } else {
    return static_cast<Out>(to_arith(v));
  }
}

template <class T>
FASTSCAN_HD bool is_nan(const T& v) {
  if constexpr (std::is_floating_point_v<arith_t<T>>) {
    const auto a = to_arith(v);
    return a != a;
  } else {
    return false;
  }
}

template <class T>
FASTSCAN_HD bool less(const T& a, const T& b) {
  return to_arith(a) < to_arith(b);
}

template <class T>
FASTSCAN_HD bool equal(const T& a, const T& b) {
  return to_arith(a) == to_arith(b);
}

//! The framework's name of a value type ("int64", "float16", ...), for messages and benchmark labels.
template <class T>
inline constexpr const char* dtype_name_v = "other";
template <> inline constexpr const char* dtype_name_v<bool> = "bool";
template <> inline constexpr const char* dtype_name_v<bool_byte> = "bool";
template <> inline constexpr const char* dtype_name_v<unsigned char> = "uint8";
template <> inline constexpr const char* dtype_name_v<signed char> = "int8";
template <> inline constexpr const char* dtype_name_v<short> = "int16";
template <> inline constexpr const char* dtype_name_v<int> = "int32";
template <> inline constexpr const char* dtype_name_v<long long> = "int64";
template <> inline constexpr const char* dtype_name_v<long> = sizeof(long) == 8 ? "int64" : "other";
template <> inline constexpr const char* dtype_name_v<__half> = "float16";
template <> inline constexpr const char* dtype_name_v<__nv_bfloat16> = "bfloat16";
template <> inline constexpr const char* dtype_name_v<float> = "float32";
template <> inline constexpr const char* dtype_name_v<double> = "float64";
template <class T>
constexpr const char* dtype_name() {
  return dtype_name_v<T>;
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
