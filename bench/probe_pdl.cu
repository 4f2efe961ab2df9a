// Programmatic dependent launch (sm_90) on a small copy kernel: device time per call of 20 calls
// back to back behind a hold kernel (median of 15 batches), plain launches against launches with
// the attribute whose kernel waits first (griddepcontrol.wait) and triggers its dependents at its
// start, at its end, or never; the host's time to enqueue an empty kernel through the runtime and
// through the driver; then a chain of dependent copies checked element by element.
//   nvcc -std=c++17 -O3 -arch=sm_90 bench/probe_pdl.cu -o probe_pdl && ./probe_pdl
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

__global__ void hold(unsigned long long ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

enum mode { plain = 0, trigger_first = 1, wait_only = 2, trigger_last = 3 };

__device__ void wait_for_stream() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ void trigger_dependents() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <int Mode>
__global__ void copy_plus_one(const int4* in, int4* out, long n) {
  if (Mode != plain) wait_for_stream();
  if (Mode == trigger_first) trigger_dependents();
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) {
    int4 v = in[i];
    v.x += 1;
    out[i] = v;
  }
  if (Mode == trigger_last) trigger_dependents();
}

template <int Mode>
void launch(cudaStream_t s, bool early, const int4* in, int4* out, long n) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>((n + 127) / 128));
  cfg.blockDim = dim3(128);
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = early ? 1 : 0;
  check(cudaLaunchKernelEx(&cfg, copy_plus_one<Mode>, in, out, n), "launch");
}

float us_per_call(cudaStream_t s, const std::function<void()>& call) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> us;
  for (int r = 0; r < 15; ++r) {
    hold<<<1, 1, 0, s>>>(2000000ull);
    check(cudaEventRecord(a, s), "record");
    for (int k = 0; k < 20; ++k) call();
    check(cudaEventRecord(b, s), "record");
    check(cudaEventSynchronize(b), "timed calls");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "elapsed");
    us.push_back(ms * 1000.f / 20);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

__global__ void empty_kernel(int) {}

//! Host us per launch of 20 launches (median of 31 batches), on an idle device or behind a hold
//! kernel (the device busy while the host enqueues).
float host_us(cudaStream_t s, bool busy, const std::function<void()>& launch) {
  std::vector<float> us;
  for (int r = 0; r < 31; ++r) {
    check(cudaStreamSynchronize(s), "sync");
    if (busy) hold<<<1, 1, 0, s>>>(1000000ull);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) launch();
    us.push_back(std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - t0).count() / 20);
  }
  check(cudaStreamSynchronize(s), "sync");
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

using driver_launch_fn = CUresult(CUDAAPI*)(const CUlaunchConfig*, CUfunction, void**, void**);

//! The host's time to enqueue an empty kernel: <<<>>>, the runtime's cudaLaunchKernelEx and the
//! driver's cuLaunchKernelEx (taken through the runtime), each plain and with the attribute.
void print_host_launch(cudaStream_t s) {
  void* f = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuLaunchKernelEx", &f, 12000, cudaEnableLegacyStream, &found), "entry point");
  const auto driver = reinterpret_cast<driver_launch_fn>(f);
  cudaKernel_t k = nullptr;
  check(cudaGetKernel(&k, empty_kernel), "kernel handle");
  const auto runtime_ex = [&](bool early) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    cfg.stream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = early ? 1 : 0;
    check(cudaLaunchKernelEx(&cfg, empty_kernel, 0), "launch");
  };
  const auto driver_ex = [&](bool early) {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg{};
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 32;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = reinterpret_cast<CUstream>(s);
    cfg.attrs = &attr;
    cfg.numAttrs = early ? 1 : 0;
    int arg = 0;
    void* params[] = {&arg};
    if (driver(&cfg, reinterpret_cast<CUfunction>(k), params, nullptr) != CUDA_SUCCESS) check(cudaErrorUnknown, "driver launch");
  };
  for (const bool busy : {false, true}) {
    std::printf("host us a launch, device %s: <<<>>> %.2f  runtime Ex %.2f / with the attribute %.2f  driver Ex %.2f / %.2f\n",
                busy ? "busy" : "idle", host_us(s, busy, [&] { empty_kernel<<<1, 32, 0, s>>>(0); }),
                host_us(s, busy, [&] { runtime_ex(false); }), host_us(s, busy, [&] { runtime_ex(true); }),
                host_us(s, busy, [&] { driver_ex(false); }), host_us(s, busy, [&] { driver_ex(true); }));
  }
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  std::printf("%s\n", prop.name);
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  for (const long bytes : {131072L, 524288L, 4194304L}) {
    const long n = bytes / 16;
    int4 *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, bytes), "malloc");
    check(cudaMalloc(&out, bytes), "malloc");
    check(cudaMemset(in, 3, bytes), "memset");
    check(cudaDeviceSynchronize(), "memset");
    std::printf("copy %7ld B: plain %.2f, with the attribute: trigger first %.2f, wait only %.2f, trigger last %.2f us\n",
                bytes, us_per_call(s, [&] { launch<plain>(s, false, in, out, n); }),
                us_per_call(s, [&] { launch<trigger_first>(s, true, in, out, n); }),
                us_per_call(s, [&] { launch<wait_only>(s, true, in, out, n); }),
                us_per_call(s, [&] { launch<trigger_last>(s, true, in, out, n); }));
    check(cudaFree(in), "free");
    check(cudaFree(out), "free");
  }
  print_host_launch(s);
  print_host_launch(s);
  const long n = 1 << 20;
  int4 *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, n * 16), "malloc");
  check(cudaMalloc(&b, n * 16), "malloc");
  check(cudaMemset(a, 0, n * 16), "memset");
  check(cudaDeviceSynchronize(), "memset");
  for (int k = 0; k < 1000; ++k) {
    launch<wait_only>(s, true, a, b, n);
    launch<wait_only>(s, true, b, a, n);
  }
  check(cudaStreamSynchronize(s), "chain");  // (the copy below runs on the legacy stream)
  std::vector<int4> h(n);
  check(cudaMemcpy(h.data(), a, n * 16, cudaMemcpyDeviceToHost), "copy back");
  const long wrong = std::count_if(h.begin(), h.end(), [](const int4& v) { return v.x != 2000; });
  std::printf("2000 dependent copies: %ld of %ld elements wrong\n", wrong, n);
  return wrong == 0 ? 0 : 1;
}
