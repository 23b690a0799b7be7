"""The equivalence gate of the attention layers and masks past the grouped heads (latent attention, sliding windows):
every kernel that runs a variant matches naive, logits and gradients, within the kernel layer's tolerance."""

import pytest
import torch

from variants.kernel import kernels, tolerance
from variants.models.transformer import build
from variants.spec import TransformerSpec, problems, resolve


def gate_cases(expr_of, base):
    """(kernel, device, dtype) of every kernel but naive that runs ``expr_of(kernel)``: CPU in float32 (flex, which
    compiles for tens of seconds and has no CPU backward, apart), CUDA marked gpu in the first dtype it takes."""
    cases = []
    for kernel in kernels.names():
        if kernel == "naive":
            continue
        if kernel != "flex" and not problems(resolve(expr_of(kernel), base), "cpu", torch.float32):
            cases.append(pytest.param(kernel, "cpu", torch.float32, id=f"{kernel}-cpu"))
        for dtype in (torch.float32, torch.bfloat16):
            if not problems(resolve(expr_of(kernel), base), "cuda", dtype):
                cases.append(
                    pytest.param(kernel, "cuda", dtype, id=f"{kernel}-cuda-{str(dtype)[6:]}", marks=pytest.mark.gpu)
                )
                break
    return cases


def gate(expr: str, kernel: str, device: str, dtype: torch.dtype, base: TransformerSpec) -> None:
    """Logits and gradients of ``expr`` on ``kernel`` against naive on the same weights, within the dtype's tolerance."""

    def run(variant, state=None):
        torch.manual_seed(0)
        model = build(resolve(variant, base)).to(device=device, dtype=dtype)
        if state is not None:
            model.load_state_dict(state)
        tokens = torch.randint(0, base.vocab_size, (2, 24), generator=torch.Generator().manual_seed(1)).to(device)
        logits = model(tokens)
        logits.float().logsumexp(-1).sum().backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).float()
        return logits.float(), grads, model.state_dict()

    want = run(f"{expr}+naive")
    got = run(f"{expr}+{kernel}", want[2])
    for what, out, ref in zip(("logits", "gradients"), got[:2], want[:2]):
        error, allowed = tolerance(dtype).check(out, ref)
        assert error <= allowed, f"{what}: max |error| {error:.3g} > allowed {allowed:.3g} in {dtype}"
