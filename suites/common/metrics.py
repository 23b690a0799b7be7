"""Metrics that several suites measure alike, declared once so that their names, units and meanings agree.

A suite's ``suite.yaml`` names one of them with ``common`` (harness/suite_file.py) instead of declaring it again.
"""

from harness.contract import Metric

#: a character LM's held-out perplexity beside its loss
PERPLEXITY = Metric("perplexity", "", False, "exp(loss) per character")
TRAIN_LOSS = Metric("train_loss", "nats/char", False, "mean training loss over the last 10% of steps")
TRAIN_TIME = Metric("train_time", "s", False, "wall time of training")
TRAIN_THROUGHPUT = Metric("train_throughput", "tokens/s", True, "training tokens per second")

#: the timed cases of a cost suite (harness/measure.py)
LATENCY = Metric("latency", "ms", False, "median time of one call over clean repeats (IQR in extra)")
PEAK_FRACTION = Metric("peak_fraction", "%", True, "throughput as a share of the measured matmul peak")
MATMUL_PEAK = Metric("matmul_peak", "GFLOP/s", True, "fastest square-matmul FLOP/s of the device in this dtype")

#: name -> metric, for SuiteFile.metrics
COMMON = {
    m.name: m for m in (PERPLEXITY, TRAIN_LOSS, TRAIN_TIME, TRAIN_THROUGHPUT, LATENCY, PEAK_FRACTION, MATMUL_PEAK)
}
