"""The equivalence gate: every buildable position x scoring x head grouping x kernel matches `naive`.

Every registered position joins by registering (t5_bias's learned bias and randomized's sampled training
positions included: the models run in training mode, seeded alike, so both draw the same positions).

Outputs (logits) and gradients of a tiny two-layer model are compared with the naive kernel's on the same
weights, within the kernel layer's tolerance of the dtype (variants/kernel/_tolerance.py, the table every
"matches naive" check reads): max |error| <= atol + rtol x max |naive's value|, for logits and gradients alike.

A combination is buildable when ``problems(spec, device, dtype)`` is empty; CPU cases run everywhere in
float32, CUDA cases are marked ``gpu`` (float32 where the kernel allows it, else bfloat16). FlexAttention compiles
each distinct call, so its cases are a few chosen combinations; it has no backward pass on CPU, so its CPU
case is one forward comparison (compiling takes tens of seconds there).
"""

import itertools

import pytest
import torch

from variants.kernel import kernels, tolerance
from variants.position._base import positions
from variants.scoring._base import scorings
from variants.spec import TransformerSpec, problems, resolve
from variants.transformer import build

GROUPINGS = ("mha", "gqa2", "mqa")
#: flex compiles once per distinct call (shape, score_mod, scale), so its gate covers a few combinations only
FLEX_CASES = {"alibi+scaled_dot+gqa2", "rope+dot+mqa", "none+general+mha", "t5_bias+scaled_dot+mha"}
SMALL = TransformerSpec(vocab_size=23, d_model=32, n_layers=2, n_heads=4, max_len=12)


def _cases(device, dtypes, marks=()):
    out = []
    for position, scoring, grouping, kernel in itertools.product(positions.names(), scorings.names(), GROUPINGS, kernels.names()):
        if kernel == "naive" or (kernel == "flex" and f"{position}+{scoring}+{grouping}" not in FLEX_CASES):
            continue
        expr = f"{position}+{scoring}+{grouping}+{kernel}"
        for dtype in dtypes:
            if not problems(resolve(expr, SMALL), device, dtype):
                out.append(pytest.param(expr, device, dtype, id=f"{expr}-{device}-{str(dtype)[6:]}", marks=marks))
                break  # one dtype per combination: the first the kernel takes
    return out


CPU_CASES = _cases("cpu", (torch.float32,))
GPU_CASES = _cases("cuda", (torch.float32, torch.bfloat16), marks=(pytest.mark.gpu,))


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny shapes gain nothing from threads, and OpenMP threads on a busy machine slow them several-fold."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _run(expr: str, device: str, dtype: torch.dtype, state=None, grad: bool = True):
    """(logits, flat gradients, state_dict) of a tiny model of ``expr`` on fixed tokens."""
    torch.manual_seed(0)
    model = build(resolve(expr, SMALL)).to(device=device, dtype=dtype)
    if state is not None:
        model.load_state_dict(state)
    tokens = torch.randint(0, SMALL.vocab_size, (2, SMALL.max_len), generator=torch.Generator().manual_seed(1)).to(device)
    if not grad:
        with torch.no_grad():
            return model(tokens).float(), None, model.state_dict()
    logits = model(tokens)
    logits.float().logsumexp(-1).sum().backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).float()
    return logits.float(), grads, model.state_dict()


def _reference(expr: str, device: str, dtype: torch.dtype, grad: bool = True):
    kernel = resolve(expr, SMALL).kernel
    return _run(expr.replace(f"+{kernel}", "+naive"), device, dtype, grad=grad)


def _check(expr, device, dtype):
    ref_logits, ref_grads, state = _reference(expr, device, dtype)
    logits, grads, _ = _run(expr, device, dtype, state)
    for what, got, want in (("logits", logits, ref_logits), ("gradients", grads, ref_grads)):
        error, allowed = tolerance(dtype).check(got, want)
        assert error <= allowed, f"{what}: max |error| {error:.3g} > allowed {allowed:.3g} in {dtype}"


@pytest.mark.parametrize("expr,device,dtype", CPU_CASES)
def test_kernel_matches_naive_on_cpu(expr, device, dtype):
    _check(expr, device, dtype)


@pytest.mark.parametrize("expr,device,dtype", GPU_CASES)
def test_kernel_matches_naive_on_cuda(expr, device, dtype):
    _check(expr, device, dtype)


def test_the_cpu_gate_covers_every_dot_product_combination_of_the_cpu_sdpa_kernels():
    ids = {p.values[0] for p in CPU_CASES}
    dot = [s for s in scorings.names() if scorings.get(s).dot_product]
    for position, scoring, grouping, kernel in itertools.product(positions.names(), dot, GROUPINGS, ("sdpa", "sdpa_math", "sdpa_flash")):
        expr = f"{position}+{scoring}+{grouping}+{kernel}"
        if positions.get(position).learned_bias and kernel == "sdpa_flash":
            # the CPU flash kernel refuses a bias that requires gradients; problems() says so before anything runs
            assert any("passes no gradient to a score bias" in r for r in problems(resolve(expr, SMALL), "cpu"))
            assert not problems(resolve(expr, SMALL), "cpu", training=False)
            continue
        assert expr in ids
    assert {"t5_bias+scaled_dot+mha+sdpa", "randomized+scaled_dot+gqa2+sdpa_flash"} <= ids
    assert not any("additive" in i for i in ids)  # only naive computes a non-dot-product scoring


@pytest.mark.parametrize("kernel", [k for k in kernels.names() if not kernels.get(k).problems(SMALL, "cpu")])
@pytest.mark.parametrize("grouping", ["mqa", "gqa2"])
def test_grouped_query_attention_equals_mha_with_repeated_key_value_weights(kernel, grouping):
    """GQA with g groups is MHA whose key/value projections repeat each group's weights (Ainslie et al. 2023)."""
    gqa = build(resolve(f"rope+{grouping}+{kernel}", SMALL)).eval()
    mha = build(resolve(f"rope+mha+{kernel}", SMALL)).eval()
    state = dict(gqa.state_dict())
    H, Dh, Hkv = SMALL.n_heads, SMALL.head_dim, resolve(grouping, SMALL).kv_heads
    for key in [k for k in state if k.endswith("kv_proj.weight")]:
        w = state[key].view(2, Hkv, Dh, SMALL.d_model).repeat_interleave(H // Hkv, dim=1)  # (2, H, Dh, D)
        state[key] = w.reshape(2 * H * Dh, SMALL.d_model)
    mha.load_state_dict(state)
    tokens = torch.randint(0, SMALL.vocab_size, (2, 12))
    assert torch.allclose(gqa(tokens), mha(tokens), atol=1e-5, rtol=0)


def test_flex_forward_matches_naive_on_cpu_with_alibi_score_mod_and_gqa():
    spec = resolve("alibi+gqa2+flex", SMALL)
    reasons = problems(spec, "cpu", training=False)
    if reasons:
        pytest.skip("; ".join(reasons))
    assert problems(spec, "cpu") == ["kernel 'flex' has no backward pass on cpu (inference only), so it cannot train"]
    ref, _, state = _reference("alibi+gqa2+flex", "cpu", torch.float32, grad=False)
    out, _, _ = _run("alibi+gqa2+flex", "cpu", torch.float32, state, grad=False)
    error, allowed = tolerance(torch.float32).check(out, ref)
    assert error <= allowed, f"max |error| {error:.3g} > allowed {allowed:.3g}"
