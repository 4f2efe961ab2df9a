// The shape fuzzer: random cases of every registered target (each entry point's check, see
// fuzz.cuh) for a time budget. FASTSCAN_FUZZ_SECONDS (default 10), FASTSCAN_FUZZ_SEED (default:
// the clock; printed either way, so a failing run repeats) and FASTSCAN_FUZZ_MAX_NUMEL.
#include "common.cuh"
#include "fuzz.cuh"

#include <chrono>
#include <cstdlib>
#include <iostream>

namespace fstest {

std::vector<fuzz_target>& fuzz_targets() {
  static std::vector<fuzz_target> targets;
  return targets;
}

namespace {
std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoll(v, nullptr, 10) : fallback;
}
}  // namespace

std::int64_t fuzz_max_numel() {
  static const std::int64_t most = env_int("FASTSCAN_FUZZ_MAX_NUMEL", std::int64_t{1} << 22);
  return most;
}

}  // namespace fstest

TEST_CASE("shape fuzzer: random shapes, types and data of every entry point against the host reference", "[gpu][fuzz]") {
  using namespace fstest;
  const auto& targets = fuzz_targets();
  REQUIRE(!targets.empty());
  const auto seconds = env_int("FASTSCAN_FUZZ_SECONDS", 10);
  const auto seed = static_cast<std::uint64_t>(
      env_int("FASTSCAN_FUZZ_SEED", std::chrono::steady_clock::now().time_since_epoch().count() & 0x7fffffffffff));
  std::cout << "fuzz: seed " << seed << ", " << seconds << " s, " << targets.size() << " targets, at most "
            << fuzz_max_numel() << " elements a case" << std::endl;
  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  std::int64_t cases = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(seconds)) {
    const fuzz_target& t = targets[rng() % targets.size()];
    const std::uint64_t case_seed = rng();
    CAPTURE(t.name, case_seed);
    t.run(case_seed);
    ++cases;
  }
  std::cout << "fuzz: seed " << seed << ", " << cases << " cases" << std::endl;
  CHECK(cases > 0);
}
