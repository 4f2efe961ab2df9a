// Instantiates every entry point on the 16-bit float types under PyTorch's flags
// (-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__)
// and a vendored namespace, so a framework fork can include fastscan as it is. Compiled, not run.
#include <fastscan/scan.cuh>

namespace {

template <class T>
void instantiate(void* temp, std::size_t& bytes, const T* in, T* out, std::int64_t* idx, float* wide) {
  const vendored_fastscan::Shape3 s{1, 10, 1};
  (void)vendored_fastscan::cummax(temp, bytes, in, out, idx, s);
  (void)vendored_fastscan::cummin(in, out, idx, s);
  (void)vendored_fastscan::cumsum(temp, bytes, in, out, s);
  (void)vendored_fastscan::cumsum(in, wide, s);
  (void)vendored_fastscan::exclusive_cumsum(temp, bytes, in, wide, s);
}

}  // namespace

void fastscan_torch_flags_instantiations(void* temp, std::size_t& bytes, std::int64_t* idx, float* wide) {
  instantiate<__half>(temp, bytes, nullptr, nullptr, idx, wide);
  instantiate<__nv_bfloat16>(temp, bytes, nullptr, nullptr, idx, wide);
}
