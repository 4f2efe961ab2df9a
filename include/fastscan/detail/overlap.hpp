//! \file overlap.hpp
//! The byte ranges of a call's arrays, for the checks every entry point makes before a launch: an
//! output may be exactly its input (in place, where the entry point allows it) but may share no
//! byte with any other array, and temp storage is 16-byte aligned.
#pragma once

#include <fastscan/namespace.hpp>

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <type_traits>

namespace FASTSCAN_NAMESPACE {
namespace detail {

struct byte_span {
  std::uintptr_t begin = 0, end = 0;
};

//! The bytes of `count` elements at `p` (none for a null pointer, a non-pointer iterator or a
//! count below 1; saturated at the top of the address space).
template <class It>
byte_span span_of(It p, std::int64_t count) {
  if constexpr (std::is_pointer_v<It>) {
    using T = std::remove_cv_t<std::remove_pointer_t<It>>;
    constexpr std::size_t size = std::is_void_v<T> ? 1 : sizeof(T);
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    if (p == nullptr || count < 1) return {begin, begin};
    const std::uintptr_t room = std::numeric_limits<std::uintptr_t>::max() - begin;
    const auto n = static_cast<std::uint64_t>(count);
    return {begin, n > room / size ? begin + room : begin + static_cast<std::uintptr_t>(n * size)};
  } else {
    return {};
  }
}

//! Two ranges share a byte (an empty range shares none).
inline bool overlap(byte_span a, byte_span b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}
//! An output that is exactly its input (in place) or shares none of it.
inline bool in_place_or_apart(byte_span in, byte_span out) {
  return (in.begin == out.begin && in.end == out.end) || !overlap(in, out);
}
//! No two of `spans` share a byte.
inline bool all_apart(std::initializer_list<byte_span> spans) {
  for (auto a = spans.begin(); a != spans.end(); ++a) {
    for (auto b = a + 1; b != spans.end(); ++b) {
      if (overlap(*a, *b)) return false;
    }
  }
  return true;
}
//! None of `ptrs` is null.
template <class... P>
bool non_null(const P*... ptrs) {
  return ((ptrs != nullptr) && ...);
}
//! Temp storage is read and written in 16-byte words.
inline bool temp_aligned(const void* d_temp) { return reinterpret_cast<std::uintptr_t>(d_temp) % 16 == 0; }

}  // namespace detail
}  // namespace FASTSCAN_NAMESPACE
