import pytest
import torch

import fastscan  # noqa: F401  (registers the operators)

requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

OPS = ["cummax", "cummin", "cumsum", "logcumsumexp", "cummaxmin_backward", "segment_sum", "segmented_cumsum",
       "voxel_sum", "bev_pool", "bev_pool_backward", "_cummax_raw_bench"]
