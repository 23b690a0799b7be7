"""harness.env.prepare_device: the numeric settings a job runs under, pinned and recorded."""

import torch

from harness.env import full_precision_cudnn, prepare_device


def test_cuda_jobs_turn_tf32_off_for_cudnn_and_record_it(monkeypatch):
    cudnn = torch.backends.cudnn
    if hasattr(cudnn, "rnn") and hasattr(cudnn.rnn, "fp32_precision"):
        before = (cudnn.rnn.fp32_precision, cudnn.conv.fp32_precision)
        try:
            cudnn.rnn.fp32_precision = cudnn.conv.fp32_precision = "tf32"  # CUDA builds' default
            assert prepare_device("cuda")["cudnn_fp32"] == "ieee"
            assert (cudnn.rnn.fp32_precision, cudnn.conv.fp32_precision) == ("ieee", "ieee")
        finally:
            cudnn.rnn.fp32_precision, cudnn.conv.fp32_precision = before
    else:  # older PyTorch: the legacy flag
        monkeypatch.setattr(cudnn, "allow_tf32", True)
        assert full_precision_cudnn() == "ieee" and cudnn.allow_tf32 is False


def test_cpu_jobs_record_no_cudnn_setting():
    settings = prepare_device("cpu")
    assert "cudnn_fp32" not in settings and settings["flush_denormal"] in (True, False)
