"""The README's plugin example ("Adding a variant"), run exactly as written in a throwaway package.

The package is the README's module, and its ``pyproject.toml`` entry points written as an installed
distribution's ``.dist-info`` on a folder of its own; bench runs in a subprocess with that folder on its path,
so the plugin is found the way an installed one is (importlib.metadata's entry points) and this process's
registries stay as they are. One subprocess lists it, trains with it through ``bench run`` and decodes with it.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]


def readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Adding a variant\n")
    return text[start : text.index("\n## ", start + 1)]


def code_blocks(language: str):
    return re.findall(rf"```{language}\n(.*?)```", readme_section(), re.S)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """A folder holding the README's package as if installed: (folder, module path, entry points)."""
    site = tmp_path_factory.mktemp("site")
    (module,) = code_blocks("python")
    path = module.splitlines()[0].removeprefix("# ").strip()  # the block's first line names its file
    (site / path).parent.mkdir(parents=True)
    (site / path).write_text(module)
    (site / path).with_name("__init__.py").write_text("")
    (toml,) = code_blocks("toml")
    project = tomllib.loads(toml)["project"]
    eps = project["entry-points"]["bench.plugins"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    (info / "entry_points.txt").write_text("[bench.plugins]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
    return site, path, eps


SCRIPT = textwrap.dedent("""
    import json, sys
    import torch
    from bench.cli import main
    from bench.listing import render
    from variants.decode.generate import greedy_generate
    from variants.spec import TransformerSpec, resolve
    from variants.decode.static_decode import StaticDecoder
    from variants.models.transformer import build

    results = sys.argv[1]
    out = {what: render(what) for what in ("positions", "ffns", "plugins", "all")}
    out["run"] = main(["run", "variants=[kerple_log+squared_relu]", "seeds=[0]", f"results_dir={results}",
                       "progress=false", "set.steps=3", "set.d_model=16", "set.n_layers=1", "set.n_heads=2",
                       "set.train_len=8", "set.batch_size=2", "set.eval_tokens=256", "set.warmup_steps=1"])
    torch.manual_seed(0)
    spec = resolve("kerple_log+squared_relu", TransformerSpec(vocab_size=31, d_model=32, n_layers=2, n_heads=4, max_len=64))
    model = build(spec)
    out["classes"] = [type(model.position).__name__, type(model.blocks[0].ffn).__name__]
    model(torch.randint(0, 31, (2, 16))).logsumexp(-1).mean().backward()
    out["bias_grad"] = float(model.position.log_r.grad.abs().sum())
    model.eval()
    prompt = torch.randint(0, 31, (2, 5))
    with torch.inference_mode():
        cached, _ = greedy_generate(model, prompt, 10, use_cache=True)
        full, _ = greedy_generate(model, prompt, 10, use_cache=False)
    out["decoded"] = cached.tolist() == full.tolist() and cached.shape == (2, 10)
    try:
        StaticDecoder(model, batch=2, capacity=20, graph=False)
        out["static"] = "captured"
    except ValueError as exc:  # refused in one sentence, not a TypeError from an int offset
        out["static"] = str(exc)
    print("RESULT " + json.dumps(out))
""")


@pytest.fixture(scope="module")
def ran(plugin, tmp_path_factory):
    site, _, _ = plugin
    results = tmp_path_factory.mktemp("results")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(results)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT ")), results


def rows(listing: str, name: str):
    return [line for line in listing.splitlines() if line.split()[:1] == [name]]


def test_the_plugin_registers_each_component_under_its_own_name_with_its_own_docstring(plugin, ran):
    out, _ = ran
    (position,) = rows(out["positions"], "kerple_log")
    (ffn,) = rows(out["ffns"], "squared_relu")
    assert "KERPLE-log: -r1 log(1 + r2 |i - j|)" in position and "Chi et al. 2022" in position
    assert "Squared ReLU: down(relu(up(x))^2)" in ffn
    assert not rows(out["positions"], "components") and not rows(out["ffns"], "components")  # not the module's name
    assert "a learned logarithmic distance bias and a squared-ReLU" not in out["all"]  # not the module's docstring
    _, _, eps = plugin
    (name,) = eps
    (loaded,) = rows(out["plugins"], name)
    assert eps[name] in loaded and "Error" not in loaded


def test_the_plugin_trains_through_bench_run_and_its_learned_bias_gets_gradients(ran):
    out, results = ran
    assert out["run"] == 0 and out["classes"] == ["KerpleLog", "SquaredRelu"] and out["bias_grad"] > 0
    records = [json.loads(line) for f in results.rglob("*.jsonl") for line in f.read_text().splitlines()]
    assert records and all(r["status"] == "ok" for r in records)
    assert {r["spec"]["position"] for r in records} == {"kerple_log"} and {r["spec"]["ffn"] for r in records} == {
        "squared_relu"
    }


def test_the_plugin_decodes_with_the_cache_and_a_captured_step_is_refused_in_one_sentence(ran):
    out, _ = ran
    assert out["decoded"] is True
    assert out["static"] == (
        "cannot capture the decode step of this model: KerpleLog positions do not take a position held on the device"
    )


def test_an_installed_plugin_fails_no_test(plugin):
    """With the example installed, the tests that read the registries still see the built-in components alone."""
    site, _, _ = plugin
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/unit/variants/test_registry.py",
            "tests/integration/test_cli.py::test_list_shows_every_section",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
