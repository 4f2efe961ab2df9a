// Zeroes segment_sum's rows past the segment count, which only the device knows.
#include "../kernels.h"

#include <fastscan/extension.cuh>

namespace fastscan_ext {
namespace impl {

__global__ void zero_tail_kernel(std::int64_t* unique_keys, std::uint32_t* sum_words, std::int64_t words_per_row,
                                 const std::int64_t* num_segments, std::int64_t S) {
  const std::int64_t count = *num_segments;
  const std::int64_t first = count < 0 ? 0 : count < S ? count : S;  // a count in [0, S] whatever it holds
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  const std::int64_t tid = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  for (std::int64_t i = first * words_per_row + tid; i < S * words_per_row; i += stride) {
    sum_words[i] = 0;
  }
  for (std::int64_t i = first + tid; i < S; i += stride) {
    unique_keys[i] = 0;
  }
}

}  // namespace impl

cudaError_t zero_segment_tail(std::int64_t* unique_keys, void* sums, std::size_t acc_bytes,
                              const std::int64_t* num_segments, std::int64_t S, std::int64_t C, cudaStream_t stream) {
  if (S <= 0) {
    return cudaSuccess;
  }
  const std::int64_t words_per_row = C * static_cast<std::int64_t>(acc_bytes / 4);  // accumulators are 4 or 8 bytes
  const std::int64_t work = S * (words_per_row > 0 ? words_per_row : 1);
  impl::zero_tail_kernel<<<FASTSCAN_NAMESPACE::extension::elementwise_grid(work),
                            FASTSCAN_NAMESPACE::extension::elementwise_threads, 0, stream>>>(
      unique_keys, static_cast<std::uint32_t*>(sums), words_per_row, num_segments, S);
  return cudaPeekAtLastError();
}

}  // namespace fastscan_ext
