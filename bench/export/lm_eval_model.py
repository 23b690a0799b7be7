"""bench's trained models as an lm-evaluation-harness model: ``loglikelihood``, ``loglikelihood_rolling`` and
``generate_until`` (``lm_eval.api.model.LM``) over the model of one stored job (bench/export/command.py).

Where lm-eval is installed, importing this module registers the model as ``bench``; lm-eval discovers no models of
other packages, so its command line is run through this module, which registers first::

    python -m bench.export.lm_eval_model --model bench \\
        --model_args variant=rope+gqa2+rmsnorm+swiglu,results_dir=results --tasks wikitext

Characters are tokens: a request's text is encoded with the job's character vocabulary (an unseen character as id
0). bench's models were trained without a start-of-document token, so id 0 stands in as lm-eval's prefix token: a
document's first character is scored after it, with no real context. Windows are the model's training length
(``max_len``): a rolling log-likelihood scores every character exactly once, each window after the first taking
the ``max_len`` characters before its targets (lm-eval's ``get_rolling_token_windows`` with a context of 1), which
is bench's own non-overlapping evaluation of the prefix and the text (suites/common/lm.py ``evaluate_nll``).
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

#: the token that stands for a document's start (id 0: a character unseen in training)
PREFIX = 0


class BenchLMCore:
    """The three requests lm-eval makes, over the trained model that ``bench export``'s keys name."""

    def __init__(
        self,
        variant: str,
        suite: str = "position_extrapolation",
        seed: int | str = 0,
        results_dir: str = "results",
        batch_size: int | str = 16,
        max_gen_toks: int | str = 256,
        device: str | None = None,
        max_batch_size: int | str | None = None,
        **selection,
    ) -> None:
        """``selection``: which group of records (profile, dtype, suite_version, data), as ``bench export`` takes it;
        ``device``: where the model computes (lm-eval's default, CUDA, where a CUDA device is present, else CPU)."""
        from bench.config import ExportConfig
        from bench.export.command import trained_model

        cfg = ExportConfig(variant=variant, suite=suite, seed=int(seed), results_dir=results_dir, **selection)
        self.results_dir = results_dir
        self.model, record, bench_suite = trained_model(cfg, exported=False)  # any decoder LM bench trains
        self.compute_device = (
            str(device) if device and str(device).startswith("cuda") and torch.cuda.is_available() else "cpu"
        )
        self.model.to(self.compute_device)
        self.chars = bench_suite.vocabulary(record) or ""
        self.index = {c: i + 1 for i, c in enumerate(self.chars)}
        self.max_length = int(self.model.spec.max_len)
        self.batch_size = int(batch_size)
        self.max_gen_toks = int(max_gen_toks)

    def encode(self, text: str) -> list[int]:
        return [self.index.get(c, 0) for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.chars[i - 1] if i > 0 else "" for i in ids)

    @torch.inference_mode()
    def _scores(self, windows: list[tuple[list[int], int]]) -> list[tuple[float, bool]]:
        """For each (ids, scored): the log-likelihood of the last ``scored`` ids given the ones before them, and
        whether each is the model's greedy choice. ``ids`` holds at most max_length + 1 tokens."""
        out = []
        for i in range(0, len(windows), self.batch_size):
            chunk = windows[i : i + self.batch_size]
            width = max(len(ids) - 1 for ids, _ in chunk)
            inputs = torch.zeros(len(chunk), width, dtype=torch.long)  # right-padded: causal attention ignores it
            for row, (ids, _) in enumerate(chunk):
                inputs[row, : len(ids) - 1] = torch.tensor(ids[:-1])
            logprobs = F.log_softmax(self.model(inputs.to(self.compute_device)).double().cpu(), dim=-1)  # (b, width, V)
            for row, (ids, scored) in enumerate(chunk):
                n = len(ids) - 1
                targets = torch.tensor(ids[n - scored + 1 :])  # the last ``scored`` ids
                rows = logprobs[row, n - scored : n]  # (scored, V): the positions that predict them
                picked = rows.gather(-1, targets[:, None]).sum().item()
                out.append((picked, bool((rows.argmax(-1) == targets).all())))
        return out

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        """(log P(continuation | context), whether greedy decoding gives it) per (context, continuation) request;
        the context keeps its last characters within the model's length."""
        windows = []
        for request in requests:
            context, continuation = request.args
            ids = [PREFIX, *self.encode(context), *self.encode(continuation)]
            scored = len(continuation)
            windows.append((ids[-(self.max_length + 1) :], min(scored, self.max_length)))
        return self._scores(windows)

    def rolling_windows(self, ids: list[int]) -> list[tuple[list[int], int]]:
        """Windows that score each of ``ids`` once: targets in chunks of max_length, each window the max_length
        tokens before its chunk's end (the prefix first)."""
        full, windows = [PREFIX, *ids], []
        for start in range(0, len(ids), self.max_length):
            end = min(start + self.max_length, len(ids))
            windows.append((full[max(0, end - self.max_length) : end + 1], end - start))
        return windows

    def loglikelihood_rolling(self, requests) -> list[float]:
        """The log-likelihood of each request's whole text, every character scored once."""
        out = []
        for request in requests:
            (text,) = request.args[:1]
            out.append(sum(score for score, _ in self._scores(self.rolling_windows(self.encode(text)))))
        return out

    @torch.inference_mode()
    def generate_until(self, requests) -> list[str]:
        """Greedy continuations of each context, stopped before the first of ``until`` or after ``max_gen_toks``."""
        out = []
        for request in requests:
            context, kwargs = request.args
            kwargs = dict(kwargs or {})
            until = kwargs.get("until") or []
            until = [until] if isinstance(until, str) else list(until)
            ids = [PREFIX, *self.encode(context)]
            text = ""
            for _ in range(int(kwargs.get("max_gen_toks", self.max_gen_toks))):
                window = torch.tensor([ids[-self.max_length :]], device=self.compute_device)
                ids.append(int(self.model(window)[0, -1].argmax()))
                text += self.decode(ids[-1:])
                if any(stop in text for stop in until):
                    break
            for stop in until:
                text = text.split(stop)[0]
            out.append(text)
        return out


def register():
    """The lm-eval model class ``bench`` (registered), or None where lm-eval is not installed."""
    try:
        from lm_eval.api.model import LM
        from lm_eval.api.registry import register_model
    except ImportError:
        return None

    @register_model("bench")
    class BenchLM(BenchLMCore, LM):
        """A trained bench model (``--model_args variant=...,suite=...,seed=...,results_dir=...``)."""

        def __init__(self, **kwargs) -> None:
            LM.__init__(self)
            BenchLMCore.__init__(self, **kwargs)

    return BenchLM


BenchLM = register()

if __name__ == "__main__":
    import sys

    if BenchLM is None:
        print("bench: lm-eval is not installed; install it with `pip install lm-eval`.", file=sys.stderr)
        raise SystemExit(2)
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()
