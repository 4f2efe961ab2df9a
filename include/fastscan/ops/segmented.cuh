//! \file segmented.cuh
//! The segment-head operator: any associative scan becomes a segmented one over (value, heads)
//! pairs, and the same operator serves the warp and block collectives in users' kernels.
#pragma once

#include <fastscan/ops/value_index.cuh>

#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN

//! A value and the segment heads folded into it: a flag (H = bool: does a segment start here, or
//! anywhere in the fold), or a count (an integer H: how many start in the fold, so the running
//! fold of a whole array numbers its segments 1, 2, ...).
template <class A, class H = bool>
struct flagged {
  A value;
  H head;
};

//! combine(earlier, later) restarts at `later` when it holds a head and adds the heads; associative
//! whenever `Op` is (exactly so when `Op` is).
template <class Op>
struct segmented_op {
  Op op;
  template <class A, class H>
  FASTSCAN_HD flagged<A, H> operator()(const flagged<A, H>& earlier, const flagged<A, H>& later) const {
    return {later.head ? later.value : op(earlier.value, later.value), static_cast<H>(earlier.head + later.head)};
  }
};

template <class Op, class A, class H>
struct is_exactly_associative<segmented_op<Op>, flagged<A, H>> : is_exactly_associative<Op, A> {};

//! The head flag of position `i` of a run of sorted keys: a new key starts a segment.
template <class Key>
FASTSCAN_HD bool key_starts_segment(const Key& key, const Key& previous_key, bool first) {
  return first || !(key == previous_key);
}

namespace detail {
using FASTSCAN_NAMESPACE::flagged;
using FASTSCAN_NAMESPACE::segmented_op;
}  // namespace detail

FASTSCAN_NAMESPACE_END
