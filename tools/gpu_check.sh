#!/usr/bin/env bash
# The GPU check (`make gpu-check`): everything that needs a CUDA device, in at most 9 minutes on one H200.
#
# It runs with the machine's own Python and CUDA torch, never a venv: a GPU machine may reach no package
# registry. What that machine lacks is carried, made here by `make gpu-carry`: wheels
# in .whl/, installed into a private folder first (each package alone, the build that fits this Python), and
# the SWORD module of position_extrapolation's corpus in .sword/ (SWORD_PATH). Steps run in order of
# importance, each under its own time limit, so a slow step costs its own results and not the others';
# logs, records and reports go under OUT (default gpu-check/), and the last line sums up each step's status.
#
#   make gpu-carry                                   # here, once (a registry, Debian's sword-text-web)
#   OUT=$OUT PYTHON=python3 bash tools/gpu_check.sh  # there, carrying [".whl", ".sword"], limit 560 s
#   GPU_STEPS="gpu_tests kv_cache" ...              # only the steps named

set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT=${OUT:-gpu-check}
mkdir -p "$OUT"
RESULTS="$OUT/results"
REPORTS="$OUT/reports"
SITE=${GPU_SITE:-/tmp/bench-site}

if ls .whl/*.whl >/dev/null 2>&1; then
    for wheel in .whl/*.whl; do basename "$wheel" | cut -d- -f1; done | sort -u | while read -r package; do
        "$PY" -m pip install -q --no-index --no-deps --find-links .whl --target "$SITE" "$package" \
            >>"$OUT/wheels.log" 2>&1 || echo "gpu-check: no carried wheel of $package fits this Python" >>"$OUT/wheels.log"
    done
fi
export PYTHONPATH="$PWD:$SITE${PYTHONPATH:+:$PYTHONPATH}"
if [ -d .sword/modules ]; then
    export SWORD_PATH="$PWD/.sword"
fi

if ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
    echo "gpu-check needs a CUDA device; torch sees none." >&2
    exit 2
fi

summary=()
step() {  # step NAME SECONDS COMMAND...: run under a time limit, log to OUT/NAME.log, note its status and time
    local name=$1 limit=$2
    shift 2
    # GPU_STEPS="gpu_tests kv_cache" runs those steps alone (a rerun of the ones a short lease cut off)
    if [ -n "${GPU_STEPS:-}" ] && [[ " $GPU_STEPS " != *" $name "* ]]; then
        return 0
    fi
    local start=$SECONDS
    timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    local took=$((SECONDS - start))
    summary+=("$name rc=$rc ${took}s")
    echo "== $name: rc=$rc after ${took}s (limit ${limit}s); last lines:"
    tail -n 4 "$OUT/$name.log"
}

RUN=("$PY" -m bench.cli run results_dir="$RESULTS" progress=false)

"$PY" - >"$OUT/device.txt" 2>&1 <<'EOF'
import torch
print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))
from variants.kernel._capabilities import current
print(current())
EOF

# 1. the GPU-marked tests first (correctness before speed): kernels against naive, latent attention and windows on
#    every CUDA kernel that runs them, capabilities, training and decoding on CUDA (one line per test as it ends, so
#    a run cut short by the limit still names what passed and what failed)
#    A test gets 30 s where pytest-timeout is installed: on an H200 (2026-12-04) the CUDA sequence_cost test alone
#    outlasted the step's 90 s, so three tests ran of the whole set.
TEST_TIMEOUT=$("$PY" -c 'import pytest_timeout' >/dev/null 2>&1 && echo --timeout=30)
step gpu_tests 90 "$PY" -m pytest -v -m gpu -p no:cacheprovider --durations=15 $TEST_TIMEOUT tests
# 2. decoding: KV bytes (measured = formula) and the cached step of MHA, GQA, MQA, latent attention and a sliding
#    window, bandwidth against the copy bandwidth, and the four decode paths
#    (contexts to 16384 and decode paths to 65536 took 70 s for rope alone on an H200; contexts of 512 and 4096 alone
#    leave the memory-bound claim untestable: it needs two contexts whose bytes dominate the step). Variants in order
#    of what the claims need first: MHA, MQA, then latent attention and the window.
step kv_cache 100 "${RUN[@]}" suite=kv_cache profile=gpu device=cuda \
    'variants=[rope,rope+mqa,mla,rope+window64,rope+gqa2]' 'set.contexts=[512,4096,16384]' 'set.path_contexts=[4096,16384]'
# 3. recurrence against attention on the device the utilisation claim is about: share of the matmul peak per layer,
#    minGRU's parallel scan against the sequential GRU loop, and the chunked linear recurrence against its loop, in
#    one group; the scan claims' pairs first (on an H200 the step ran out of time before a last `gru+loop`, and at
#    4096 tokens the GRU's Python loop, one launch per token and gate, outlasted it)
step sequence_cost 130 "${RUN[@]}" suite=sequence_cost profile=large device=cuda \
    'variants=[mingru,gru+loop,gated_deltanet,gated_deltanet+loop,transformer,lstm,gru,linear_attention]' \
    'set.lengths=[256,1024]'
# 4. every available attention kernel at 1024 and 4096 tokens (16384 too took 100 s for 8 of 27 kernels), bf16, causal, fwd and fwd+bwd; the fused
#    kernels first, naive and flex (which compiles each shape) last, so a step cut short loses the least
step attention_cost 80 "${RUN[@]}" suite=attention_cost profile=gpu device=cuda dtype=bfloat16 \
    'variants=[sdpa,sdpa+gqa2,sdpa+mqa,sdpa_flash,sdpa_flash+gqa2,sdpa_flash+mqa,sdpa_efficient,sdpa_efficient+gqa2,sdpa_efficient+mqa,sdpa_cudnn,sdpa_cudnn+gqa2,sdpa_cudnn+mqa,flash_attn,flash_attn+gqa2,flash_attn+mqa,xformers,xformers+gqa2,xformers+mqa,sdpa_math,sdpa_math+gqa2,sdpa_math+mqa,naive,naive+gqa2,naive+mqa,flex,flex+gqa2,flex+mqa]' \
    'set.lengths=[1024,4096]' 'set.causal=[true]' set.batch=1 set.min_repeats=5 'set.matmul_sizes=[8192]'
# 5. training: position_extrapolation standard, one seed, five variants (target: one job in at most 15 s)
step train_position_extrapolation 90 "${RUN[@]}" suite=position_extrapolation profile=standard device=cuda \
    'seeds=[0]' 'variants=[none,sinusoidal,learned,rope,alibi]'
# 6. the price of the registry and harness against plain PyTorch, eager
step paired_eager 20 "$PY" -m tests.benchmarks.paired_gpt --device cuda --rounds 4

for suite in kv_cache sequence_cost attention_cost position_extrapolation; do
    "$PY" -m bench.cli report suite=$suite results_dir="$RESULTS" reports_dir="$REPORTS" >>"$OUT/reports.log" 2>&1
done
printf '%s\n' "${summary[@]}" >"$OUT/summary.txt"
echo "gpu-check: ${summary[*]}"
