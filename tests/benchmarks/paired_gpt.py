"""Paired throughput benchmark: the harness's training step against a plain-PyTorch GPT.

A: the variant ``learned+sdpa`` resolved through the registry on a TransformerSpec of nanoGPT's baby size
(4 layers, 4 heads, d 128, max_len 256, vocabulary 65, no dropout; Pre-LN LayerNorm, GELU FFN of 4 x d and
tied embeddings are the spec's defaults), built by variants.models.transformer.build and trained by
harness.train.train on the suites' loss (suites.common.lm.lm_loss).
B: PlainGPT (plain_gpt.py, nanoGPT's architecture, written for this) in a nanoGPT-style loop: set the
learning rate, forward with targets, backward, clip, AdamW step, zero the gradients; the loss read back once
per round. Both use harness.train's AdamW settings (lr, betas, weight decay on matrices, clip 1.0, warm-up
and cosine schedule), batch 16 x 256 tokens from one pool of random token batches made before timing (no
data loading is timed), float32.

The two run in alternating rounds within one process (A, B, A, B, ...). Each round starts a fresh optimiser
(``train`` makes its own), runs ``--warmup`` untimed steps, then times ``--steps`` steps; a first untimed
round of each warms both up (with ``--compile``: compiles both). On CPU eager a round interleaves the two
loops step by step (``--pairing step``: B's step s runs inside A's loss function, then A's step s; each step
timed on its own), so a load that comes and goes on a shared machine falls on both sides of a pair; with CUDA
or ``--compile`` whole rounds alternate (``--pairing round``). The ratio of a round is A's tokens/s over
B's; the median ratio over the rounds, with its range, is the price of the registry and the harness (above
1: the harness is faster); step pairing also prints the median and quartiles of the per-step ratios. With ``--compile`` (``set.compile=true``: TrainSettings.compile for A,
torch.compile(model) for B, as nanoGPT compiles) each round also times B eager (C: the same weights, not
compiled), and a second ratio, A compiled over C, is what ``set.compile=true`` buys against the plain loop
as nanoGPT runs it without compiling. Targets: at least 1.0 eager (A/B), at least 1.3 with ``--compile``
(A compiled / C).

    python -m tests.benchmarks.paired_gpt --rounds 6            # or: make paired-bench
    python -m tests.benchmarks.paired_gpt --rounds 6 --compile

Not collected by pytest (the file name has no ``test_`` prefix); tests/unit/test_paired_gpt.py checks it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from harness.train import TrainSettings, train
from suites.common.lm import lm_loss
from tests.benchmarks.plain_gpt import PlainConfig, PlainGPT, cosine_lr, make_adamw
from variants.models.transformer import DecoderLM, build
from variants.spec import TransformerSpec, resolve

VARIANT = "learned+sdpa"
LR = 1e-3  # nanoGPT's learning rate for the character-level run


def harness_model(c: PlainConfig) -> DecoderLM:
    """The registry's model of the plain GPT's configuration."""
    base = TransformerSpec(
        vocab_size=c.vocab_size,
        d_model=c.n_embd,
        n_layers=c.n_layer,
        n_heads=c.n_head,
        max_len=c.block_size,
        dropout=0.0,
    )
    return build(resolve(VARIANT, base))


def settings_for(total_steps: int, compile: bool) -> TrainSettings:
    """The harness's settings of one round: its AdamW defaults at nanoGPT's learning rate."""
    return TrainSettings(steps=total_steps, lr=LR, warmup_steps=max(1, total_steps // 10), compile=compile)


def token_batches(c: PlainConfig, count: int, device: str, seed: int = 0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``count`` (inputs, targets) pairs of random tokens, (batch, block) each, already on the device."""
    g = torch.Generator().manual_seed(seed)
    window = torch.randint(0, c.vocab_size, (count, c.batch_size, c.block_size + 1), generator=g).to(device)
    return [(w[:, :-1], w[:, 1:]) for w in window]


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def harness_round(model: DecoderLM, batches, warmup: int, steps: int, compile: bool, device: str) -> float:
    """Seconds ``train`` takes for ``steps`` steps after ``warmup`` untimed ones (its final read-back included)."""
    start: list[float] = []

    def loss_fn(runner, step: int):
        if step == warmup:
            _sync(device)
            start.append(time.perf_counter())
        x, y = batches[step % len(batches)]
        return lm_loss(runner, x, y), x.numel()

    train(model, loss_fn, settings_for(warmup + steps, compile), progress=False)
    _sync(device)
    return time.perf_counter() - start[0]


def plain_steps(model: PlainGPT, runner: Callable, batches, total_steps: int) -> Callable[[int], torch.Tensor]:
    """One step of a nanoGPT-style loop as a function of the step (a fresh AdamW per loop): set the learning rate,
    forward with targets, backward, clip, AdamW step, zero the gradients; returns the loss, not read back."""
    s = settings_for(total_steps, False)
    opt = make_adamw(model, s.lr, s.betas, s.weight_decay)
    model.train()

    def step_at(step: int) -> torch.Tensor:
        for group in opt.param_groups:
            group["lr"] = cosine_lr(step, s.lr, s.warmup_steps, s.steps, s.min_lr_ratio)
        x, y = batches[step % len(batches)]
        _, loss = runner(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), s.grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    return step_at


def _check_plain(loss: torch.Tensor) -> None:
    final = loss.item()  # one read-back per round, which also waits for the device
    if final != final:
        raise FloatingPointError("the plain GPT's loss became NaN")


def plain_round(model: PlainGPT, runner: Callable, batches, warmup: int, steps: int, device: str) -> float:
    """Seconds a nanoGPT-style loop takes for ``steps`` steps after ``warmup`` untimed ones."""
    step_at = plain_steps(model, runner, batches, warmup + steps)
    for step in range(warmup + steps):
        if step == warmup:
            _sync(device)
            start = time.perf_counter()
        loss = step_at(step)
    _check_plain(loss)
    return time.perf_counter() - start


def interleaved_round(a: DecoderLM, b: PlainGPT, batches, warmup: int, steps: int) -> tuple[list[float], list[float]]:
    """(harness step seconds, plain step seconds) of ``steps`` steps of each after ``warmup`` untimed ones, the two
    loops interleaved step by step on CPU: ``train``'s loss function first runs the plain loop's step of the same
    index, so a harness step is timed from the end of that plain step to the start of the next one (the last:
    to ``train``'s return, its final read-back included). A load that comes and goes on a shared machine then
    falls on both sides of a pair, where whole rounds of one side each can catch it on one side only. CPU only:
    the time of a step is only its own where every operator has finished when it returns."""
    step_at = plain_steps(b, b, batches, warmup + steps)
    a_times: list[float] = []
    b_times: list[float] = []
    mark: list[float] = []
    last: list[torch.Tensor] = []

    def loss_fn(runner, step: int):
        now = time.perf_counter()
        if mark and step > warmup:
            a_times.append(now - mark[0])
        last[:] = [step_at(step)]
        done = time.perf_counter()
        if step >= warmup:
            b_times.append(done - now)
        mark[:] = [done]
        x, y = batches[step % len(batches)]
        return lm_loss(runner, x, y), x.numel()

    train(a, loss_fn, settings_for(warmup + steps, False), progress=False)
    a_times.append(time.perf_counter() - mark[0])
    _check_plain(last[0])
    return a_times, b_times


@dataclass
class PairedResult:
    """Per-round tokens/s of both sides and their ratios (harness / plain)."""

    harness_tps: list[float] = field(default_factory=list)
    plain_tps: list[float] = field(default_factory=list)
    #: with compile: the plain model's tokens/s eager, timed in the same rounds
    plain_eager_tps: list[float] = field(default_factory=list)
    #: interleaved pairing: every timed pair's plain step seconds over its harness step seconds
    step_ratios: list[float] = field(default_factory=list)
    params: dict[str, int] = field(default_factory=dict)

    @property
    def ratios(self) -> list[float]:
        return [a / b for a, b in zip(self.harness_tps, self.plain_tps)]

    @property
    def median_ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def compile_gains(self) -> list[float]:
        """Per round: the harness (compiled) over the plain model eager; empty when not compiling."""
        return [a / c for a, c in zip(self.harness_tps, self.plain_eager_tps)]


PAIRINGS = ("step", "round")


def default_pairing(device: str, compile: bool) -> str:
    """Steps interleaved on CPU eager; whole rounds where a step's time is not its own (CUDA queues steps ahead)
    or where both sides compile (the compiled rounds also time the plain model eager)."""
    return "step" if device == "cpu" and not compile else "round"


def run_paired(
    c: PlainConfig = PlainConfig(),
    *,
    rounds: int = 6,
    steps: int = 20,
    warmup: int = 3,
    compile: bool = False,
    device: str = "cpu",
    pairing: str = "round",
    log: Callable[[str], None] = lambda line: None,
) -> PairedResult:
    """Alternate harness and plain rounds ``rounds`` times after one untimed round of each; with ``pairing``
    "step", each round interleaves the two loops step by step (interleaved_round)."""
    if steps < 1 or warmup < 1 or rounds < 1:
        raise ValueError("rounds, steps and warmup must each be at least 1")
    if pairing not in PAIRINGS:
        raise ValueError(f"pairing '{pairing}' is not one of {', '.join(PAIRINGS)}")
    if pairing == "step" and (device != "cpu" or compile):
        raise ValueError("pairing 'step' times eager CPU steps only; use pairing 'round' with CUDA or --compile")
    torch.manual_seed(0)
    a = harness_model(c).to(device)
    torch.manual_seed(0)
    b = PlainGPT(c).to(device)
    b_runner = torch.compile(b) if compile else b
    batches = token_batches(c, 8, device)
    tokens = steps * c.batch_size * c.block_size
    result = PairedResult(params={"harness": a.num_parameters(), "plain": b.num_parameters()})
    harness_round(a, batches, warmup, 1, compile, device)  # warm-up (and compilation) of both, untimed
    plain_round(b, b_runner, batches, warmup, 1, device)
    if compile:
        plain_round(b, b, batches, warmup, 1, device)
    for r in range(rounds):
        if pairing == "step":
            a_times, b_times = interleaved_round(a, b, batches, warmup, steps)
            result.harness_tps.append(tokens / sum(a_times))
            result.plain_tps.append(tokens / sum(b_times))
            result.step_ratios.extend(tb / ta for ta, tb in zip(a_times, b_times))
        else:
            result.harness_tps.append(tokens / harness_round(a, batches, warmup, steps, compile, device))
            result.plain_tps.append(tokens / plain_round(b, b_runner, batches, warmup, steps, device))
        line = (
            f"round {r + 1}/{rounds}: harness {result.harness_tps[-1]:9.0f} tok/s  plain {result.plain_tps[-1]:9.0f} "
            f"tok/s  ratio {result.ratios[-1]:.3f}"
        )
        if compile:
            result.plain_eager_tps.append(tokens / plain_round(b, b, batches, warmup, steps, device))
            line += f"  plain eager {result.plain_eager_tps[-1]:9.0f} tok/s  gain {result.compile_gains[-1]:.3f}"
        log(line)
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rounds", type=int, default=6, help="timed rounds of each side, alternating (default 6)")
    p.add_argument("--steps", type=int, default=20, help="timed training steps per round (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps at the start of each round (default 3)")
    p.add_argument("--compile", action="store_true", help="torch.compile both models (set.compile=true)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's choice)")
    p.add_argument(
        "--pairing",
        choices=PAIRINGS,
        default=None,
        help="step: the two loops interleaved step by step within each round (the default on CPU eager); "
        "round: whole rounds of each side in turn (the default with CUDA or --compile)",
    )
    args = p.parse_args(argv)
    pairing = args.pairing or default_pairing(args.device, args.compile)
    if pairing == "step" and (args.device != "cpu" or args.compile):
        p.error("--pairing step times eager CPU steps only; use --pairing round with --device cuda or --compile")
    if args.threads:
        torch.set_num_threads(args.threads)
    c = PlainConfig()
    print(
        f"paired GPT benchmark: torch {torch.__version__}, device {args.device}, threads {torch.get_num_threads()}, "
        f"{'compiled' if args.compile else 'eager'}, float32; {c.n_layer} layers, {c.n_head} heads, d {c.n_embd}, "
        f"block {c.block_size}, batch {c.batch_size}, vocab {c.vocab_size}; {args.rounds} rounds x {args.steps} "
        f"steps after {args.warmup} warm-up steps, paired by {pairing}"
    )
    result = run_paired(
        c,
        rounds=args.rounds,
        steps=args.steps,
        warmup=args.warmup,
        compile=args.compile,
        device=args.device,
        pairing=pairing,
        log=print,
    )
    n_a, n_b = result.params["harness"], result.params["plain"]
    print(f"parameters: harness ({VARIANT}) {n_a:,}, plain {n_b:,} (difference {n_a - n_b:+,})")
    ratios = result.ratios
    print(
        f"harness tok/s median {statistics.median(result.harness_tps):.0f}, "
        f"plain tok/s median {statistics.median(result.plain_tps):.0f}"
    )
    print(
        f"ratio harness/plain: median {result.median_ratio:.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}, "
        f"{len(ratios)} rounds){'' if args.compile else '; target >= 1.0'}"
    )
    if result.step_ratios:
        q = statistics.quantiles(result.step_ratios, n=4) if len(result.step_ratios) > 1 else result.step_ratios * 3
        print(
            f"ratio per step pair: median {statistics.median(result.step_ratios):.3f} (quartiles {q[0]:.3f}, "
            f"{q[2]:.3f}; {len(result.step_ratios)} pairs)"
        )
    if args.compile:
        gains = result.compile_gains
        print(
            f"plain eager tok/s median {statistics.median(result.plain_eager_tps):.0f}; ratio harness compiled/plain "
            f"eager: median {statistics.median(gains):.3f} (min {min(gains):.3f}, max {max(gains):.3f}); target >= 1.3"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
