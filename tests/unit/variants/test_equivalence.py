"""The equivalence gate: every buildable position x scoring x head grouping x kernel matches `naive`.

Every registered position joins by registering (t5_bias's learned bias and randomized's sampled training
positions included: the models run in training mode, seeded alike, so both draw the same positions).

Outputs (logits) and gradients of a tiny two-layer model are compared with the naive kernel's on the same
weights, for the decoder LM and for the encoder-decoder (two layers each side; a padded source masked by a
score bias in the encoder's self-attention and the cross-attention; its cached decoding steps compared too),
within the kernel layer's tolerance of the dtype (variants/kernel/_tolerance.py, the table every
"matches naive" check reads): max |error| <= atol + rtol x max |naive's value|, for logits and gradients alike.

A combination is buildable when ``problems(spec, device, dtype)`` is empty; CPU cases run everywhere in
float32, CUDA cases are marked ``gpu`` (float32 where the kernel allows it, else bfloat16). FlexAttention compiles
each distinct call, so its cases are a few chosen combinations, on CUDA at a head dimension of 16 (its smallest
there); it has no backward pass on CPU, so its CPU cases are one forward comparison per model (compiling takes
tens of seconds there).
"""

import dataclasses
import functools
import itertools

import pytest
import torch

from variants.kernel import kernels, tolerance
from variants.models.seq2seq import build as build_seq2seq
from variants.models.transformer import build
from variants.position._base import positions
from variants.scoring._base import scorings
from variants.seq2seq_spec import PAD, Seq2SeqTransformerSpec
from variants.spec import TransformerSpec, problems, resolve

GROUPINGS = ("mha", "gqa2", "mqa")
#: flex compiles once per distinct call (shape, score_mod, scale), so its gate covers a few combinations only
FLEX_CASES = {"alibi+scaled_dot+gqa2", "rope+dot+mqa", "none+general+mha", "t5_bias+scaled_dot+mha"}
SMALL = TransformerSpec(vocab_size=23, d_model=32, n_layers=2, n_heads=4, max_len=12)
#: the encoder-decoder: two encoder and two decoder layers
SMALL_SEQ2SEQ = Seq2SeqTransformerSpec(vocab_size=23, d_model=32, n_layers=2, n_heads=4, max_len=12)


def _cases(device, dtypes, marks=(), base=SMALL):
    out = []
    prefix = "seq2seq:" if isinstance(base, Seq2SeqTransformerSpec) else ""
    for position, scoring, grouping, kernel in itertools.product(
        positions.names(), scorings.names(), GROUPINGS, kernels.names()
    ):
        if kernel == "naive" or (kernel == "flex" and f"{position}+{scoring}+{grouping}" not in FLEX_CASES):
            continue
        expr = f"{position}+{scoring}+{grouping}+{kernel}"
        for dtype in dtypes:
            if not problems(resolve(expr, base), device, dtype):
                out.append(
                    pytest.param(expr, device, dtype, id=f"{prefix}{expr}-{device}-{str(dtype)[6:]}", marks=marks)
                )
                break  # one dtype per combination: the first the kernel takes
    return out


CPU_CASES = _cases("cpu", (torch.float32,))
GPU_CASES = _cases("cuda", (torch.float32, torch.bfloat16), marks=(pytest.mark.gpu,))
#: FlexAttention on CUDA needs a head dimension of at least 16 (Inductor), which SMALL's 4 heads of 8 lack, so
#: its CUDA gate runs the same model with 4 heads of 16
FLEX_CUDA_BASE = dataclasses.replace(SMALL, d_model=64)
FLEX_GPU_CASES = [
    pytest.param(*c.values, id=f"d64:{c.id}", marks=c.marks)
    for c in _cases("cuda", (torch.float32, torch.bfloat16), marks=(pytest.mark.gpu,), base=FLEX_CUDA_BASE)
    if c.values[0].endswith("+flex")
]
SEQ2SEQ_CPU_CASES = _cases("cpu", (torch.float32,), base=SMALL_SEQ2SEQ)
SEQ2SEQ_GPU_CASES = _cases("cuda", (torch.float32, torch.bfloat16), marks=(pytest.mark.gpu,), base=SMALL_SEQ2SEQ)


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny shapes gain nothing from threads, and OpenMP threads on a busy machine slow them several-fold."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _run(expr: str, device: str, dtype: torch.dtype, state=None, grad: bool = True, base: TransformerSpec = SMALL):
    """(logits, flat gradients, state_dict) of a tiny model of ``expr`` (on ``base``) on fixed tokens."""
    torch.manual_seed(0)
    model = build(resolve(expr, base)).to(device=device, dtype=dtype)
    if state is not None:
        model.load_state_dict(state)
    tokens = torch.randint(0, SMALL.vocab_size, (2, SMALL.max_len), generator=torch.Generator().manual_seed(1)).to(
        device
    )
    if not grad:
        with torch.no_grad():
            return model(tokens).float(), None, model.state_dict()
    logits = model(tokens)
    logits.float().logsumexp(-1).sum().backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).float()
    return logits.float(), grads, model.state_dict()


def _run_seq2seq(expr: str, device: str, dtype: torch.dtype, state=None, grad: bool = True, steps: int = 3):
    """(logits, flat gradients, state_dict, log-probabilities of ``steps`` decoding steps) of a tiny
    encoder-decoder on fixed sources, one of them padded, and target prefixes."""
    torch.manual_seed(0)
    model = build_seq2seq(resolve(expr, SMALL_SEQ2SEQ)).to(device=device, dtype=dtype)
    if state is not None:
        model.load_state_dict(state)
    gen = torch.Generator().manual_seed(1)
    src = torch.randint(4, SMALL_SEQ2SEQ.vocab_size, (2, 10), generator=gen)
    src[1, 6:] = PAD  # the second source is 6 tokens long
    tgt = torch.randint(4, SMALL_SEQ2SEQ.vocab_size, (2, 8), generator=gen)
    src, tgt = src.to(device), tgt.to(device)
    grads = None
    if grad:
        logits = model(src, tgt)
        logits.float().logsumexp(-1).sum().backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]).float()
    with torch.no_grad():
        logits = logits if grad else model(src, tgt)
        decoding, step_log_probs = model.start(src), []
        for t in range(steps):  # cached self-attention, the memory's keys and values computed once
            log_probs, decoding = model.step(decoding, tgt[:, t])
            step_log_probs.append(log_probs)
    return logits.float(), grads, model.state_dict(), torch.stack(step_log_probs).float() if steps else None


def _reference(expr: str, device: str, dtype: torch.dtype, grad: bool = True, run=_run):
    kernel = resolve(expr, SMALL).kernel
    return run(expr.replace(f"+{kernel}", "+naive"), device, dtype, grad=grad)


def _check(expr, device, dtype, run=_run):
    ref = _reference(expr, device, dtype, run=run)
    got = run(expr, device, dtype, ref[2])
    names = ("logits", "gradients", None, "decoding steps")
    for what, out, want in zip(names, got, ref):
        if what is None:
            continue
        error, allowed = tolerance(dtype).check(out, want)
        assert error <= allowed, f"{what}: max |error| {error:.3g} > allowed {allowed:.3g} in {dtype}"


@pytest.mark.parametrize("expr,device,dtype", CPU_CASES)
def test_kernel_matches_naive_on_cpu(expr, device, dtype):
    _check(expr, device, dtype)


@pytest.mark.parametrize("expr,device,dtype", GPU_CASES)
def test_kernel_matches_naive_on_cuda(expr, device, dtype):
    _check(expr, device, dtype)


@pytest.mark.parametrize("expr,device,dtype", FLEX_GPU_CASES)
def test_flex_matches_naive_on_cuda_at_head_dimension_16(expr, device, dtype):
    _check(expr, device, dtype, run=functools.partial(_run, base=FLEX_CUDA_BASE))


def test_the_flex_cuda_gate_runs_at_a_head_dimension_flex_takes_there():
    assert FLEX_CUDA_BASE.head_dim >= kernels.get("flex").min_head_dim_on("cuda") > SMALL.head_dim
    assert FLEX_CUDA_BASE.n_heads == SMALL.n_heads and FLEX_CUDA_BASE.n_layers == SMALL.n_layers


@pytest.mark.parametrize("expr,device,dtype", SEQ2SEQ_CPU_CASES)
def test_kernel_matches_naive_in_the_encoder_decoder_on_cpu(expr, device, dtype):
    _check(expr, device, dtype, run=_run_seq2seq)


@pytest.mark.parametrize("expr,device,dtype", SEQ2SEQ_GPU_CASES)
def test_kernel_matches_naive_in_the_encoder_decoder_on_cuda(expr, device, dtype):
    _check(expr, device, dtype, run=_run_seq2seq)


def test_the_cpu_gate_covers_every_dot_product_combination_of_the_cpu_sdpa_kernels():
    ids = {p.values[0] for p in CPU_CASES}
    dot = [s for s in scorings.names() if scorings.get(s).dot_product]
    for position, scoring, grouping, kernel in itertools.product(
        positions.names(), dot, GROUPINGS, ("sdpa", "sdpa_math", "sdpa_flash")
    ):
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
    # compiled from a clean dynamo cache: after other shapes were compiled in this process, torch 2.13's inductor
    # recompiles FlexAttention with dynamic shapes and its CPU code does not build ('cur_kvSplitSize5' not declared)
    torch._dynamo.reset()
    spec = resolve("alibi+gqa2+flex", SMALL)
    reasons = problems(spec, "cpu", training=False)
    if reasons:
        pytest.skip("; ".join(reasons))
    assert problems(spec, "cpu") == ["kernel 'flex' has no backward pass on cpu (inference only), so it cannot train"]
    ref, _, state = _reference("alibi+gqa2+flex", "cpu", torch.float32, grad=False)
    out, _, _ = _run("alibi+gqa2+flex", "cpu", torch.float32, state, grad=False)
    error, allowed = tolerance(torch.float32).check(out, ref)
    assert error <= allowed, f"max |error| {error:.3g} > allowed {allowed:.3g}"


def test_the_encoder_decoder_gate_covers_every_dot_product_combination_of_the_cpu_sdpa_kernels():
    ids = {p.values[0] for p in SEQ2SEQ_CPU_CASES}
    dot = [s for s in scorings.names() if scorings.get(s).dot_product]
    for position, scoring, grouping, kernel in itertools.product(
        positions.names(), dot, GROUPINGS, ("sdpa", "sdpa_math")
    ):
        assert f"{position}+{scoring}+{grouping}+{kernel}" in ids
    assert {"alibi+scaled_dot+gqa2+sdpa_flash", "t5_bias+scaled_dot+mha+sdpa"} <= ids


def test_a_kernel_without_a_score_bias_cannot_run_the_encoder_decoder():
    """Source padding is masked by a score bias, so problems() turns such a kernel away before anything runs."""
    for name in ("flash_attn", "xformers"):
        assert any("needs to mask source padding" in r for r in problems(resolve(name, SMALL_SEQ2SEQ), "cuda"))
    assert any("needs to mask source padding" in r for r in problems(resolve("sdpa_flash", SMALL_SEQ2SEQ), "cuda"))
    assert not any("padding" in r for r in problems(resolve("sdpa_flash", SMALL_SEQ2SEQ), "cpu"))


@pytest.mark.xfail(
    strict=False,
    reason="on some CPUs (seen on an AMD EPYC) FlexAttention compiled for one thread returns NaN for fully padded rows of the encoder-decoder; two threads do not; under investigation",
)
def test_flex_forward_matches_naive_on_cpu_in_the_encoder_decoder():
    """ALiBi's causal and bidirectional score_mods, the source's padding added in the kernel (logits only: each
    decoding step's shape would compile again, tens of seconds each on CPU).

    The three calls (encoder, cross-attention, decoder) have three shapes; from the second torch.compile turns to
    dynamic shapes, for which Inductor's CPU flex template (torch 2.13) emits C++ that does not compile
    ("'cur_kvSplitSize5' was not declared"), so this test keeps shapes static."""
    import torch._dynamo

    expr = "alibi+gqa2+flex"
    if problems(resolve(expr, SMALL_SEQ2SEQ), "cpu", training=False):
        pytest.skip("; ".join(problems(resolve(expr, SMALL_SEQ2SEQ), "cpu", training=False)))
    # torch's own config patch: undoing a monkeypatch of the config module left it without the key, and every later
    # compile in the process failed ("torch._dynamo.config.automatic_dynamic_shapes does not exist")
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
        ref = _reference(expr, "cpu", torch.float32, grad=False, run=lambda *a, **k: _run_seq2seq(*a, **k, steps=0))
        got = _run_seq2seq(expr, "cpu", torch.float32, ref[2], grad=False, steps=0)
    error, allowed = tolerance(torch.float32).check(got[0], ref[0])
    assert error <= allowed, f"max |error| {error:.3g} > allowed {allowed:.3g}"
