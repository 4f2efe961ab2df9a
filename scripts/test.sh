#!/usr/bin/env bash
# The tests that need no GPU: the C++ host tests (ctest -L host, over the build/ that quickstart.sh
# makes) and, where the torch package is installed (pip install --no-build-isolation ./python), its
# pytest suite, whose GPU tests are skipped with the reason "needs a CUDA GPU" on a machine without one.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir "${FASTSCAN_BUILD_DIR:-build}" -L host --output-on-failure
if python3 -c "import fastscan._C" 2>/dev/null; then
  python3 -m pytest python/tests -q -rs -p no:cacheprovider
else
  echo "torch package not installed (pip install --no-build-isolation ./python): its pytest suite not run"
fi
