"""The streaming suite's cache policies (StreamingLLM, Xiao et al. 2023): what each keeps, and that streaming through a
cache computes what a forward over the same context computes. (Its claims' tests: claims/.)"""

import pytest
import torch
from torch.nn import functional as F

from suites.streaming.policies import kept_positions, stream_nll
from suites.streaming.suite import StreamingProfile
from variants.models.transformer import build
from variants.spec import TransformerSpec

SMALL = TransformerSpec(vocab_size=23, d_model=32, n_layers=2, n_heads=4, max_len=16, position="rope")


def _model(spec=SMALL):
    torch.manual_seed(0)
    return build(spec).eval()


def _forward_nll(model, tokens):
    with torch.no_grad():
        logits = model(tokens)
    return F.cross_entropy(logits[:, :-1].flatten(0, 1), tokens[:, 1:].flatten(), reduction="none").view(
        tokens.shape[0], -1
    )


@pytest.mark.parametrize("length", [5, 8, 9, 40])
def test_the_sink_policy_keeps_exactly_the_first_k_positions_and_the_most_recent(length):
    held, capacity, sinks = list(range(length)), 8, 4
    for _ in range(3):  # evict, then the step's token joins, as streaming does
        held = kept_positions("sinks", held, capacity, sinks) + [held[-1] + 1]
        assert len(held) <= capacity
    kept = kept_positions("sinks", held, capacity, sinks)
    assert kept[:sinks] == [0, 1, 2, 3]
    assert kept[sinks:] == held[-(capacity - 1 - sinks) :] and all(p >= sinks for p in kept[sinks:])


def test_the_sink_policy_streams_with_the_first_k_tokens_held_to_the_end():
    tokens = torch.randint(0, 23, (2, 40), generator=torch.Generator().manual_seed(1))
    _, state = stream_nll(_model(), tokens, "sinks", capacity=8, sinks=4)
    assert state.positions == [0, 1, 2, 3] + list(range(35, 39))  # the last step's token is position 38
    _, window = stream_nll(_model(), tokens, "window", capacity=8, sinks=4)
    assert window.positions == list(range(31, 39))


def test_the_window_policy_keeps_the_last_capacity_minus_one_and_full_keeps_all():
    assert kept_positions("window", list(range(20)), 8, 4) == list(range(13, 20))
    assert kept_positions("full", list(range(20)), 8, 4) == list(range(20))
    with pytest.raises(ValueError, match="keeps no cache"):
        kept_positions("recompute", [0], 8, 4)


def test_the_dense_stream_equals_one_forward_over_the_text():
    model = _model()
    tokens = torch.randint(0, 23, (2, 30), generator=torch.Generator().manual_seed(2))
    nll, state = stream_nll(model, tokens, "full", capacity=1000, sinks=4)
    assert torch.allclose(nll, _forward_nll(model, tokens), atol=1e-5)
    assert state.positions == list(range(29))


def test_every_policy_equals_the_forward_until_the_cache_is_full():
    model = _model()
    tokens = torch.randint(0, 23, (2, 30), generator=torch.Generator().manual_seed(3))
    want = _forward_nll(model, tokens)[:, :7]  # the first 8 tokens fit in a cache of 8
    for policy in ("full", "window", "sinks", "recompute"):
        nll, _ = stream_nll(model, tokens, policy, capacity=8, sinks=4)
        assert torch.allclose(nll[:, :7], want, atol=1e-5), policy


def test_window_positions_are_within_the_cache_so_it_equals_recomputation_of_one_layer():
    """One layer with RoPE: a window's cached keys depend only on themselves, and positions within the cache keep
    the offsets, so streaming the window equals recomputing the last C tokens."""
    model = _model(TransformerSpec(vocab_size=23, d_model=32, n_layers=1, n_heads=4, max_len=16, position="rope"))
    tokens = torch.randint(0, 23, (2, 30), generator=torch.Generator().manual_seed(4))
    window, _ = stream_nll(model, tokens, "window", capacity=8, sinks=4)
    recompute, _ = stream_nll(model, tokens, "recompute", capacity=8, sinks=4)
    assert torch.allclose(window, recompute, atol=1e-5)


def test_the_profile_refuses_sinks_that_fill_the_cache_and_streams_too_short():
    problems = StreamingProfile(sinks=64).problems() + StreamingProfile(stream_len=100).problems()
    assert any("set.sinks=64" in p for p in problems) and any("set.stream_len=100" in p for p in problems)


def test_a_sink_token_spec_has_its_own_identity_and_a_plain_one_keeps_its_hash():
    from suites.streaming.sink_token import led_by_sink, sink_id, split_sink, with_sink
    from variants.spec import TransformerSpec, resolve

    base = TransformerSpec(vocab_size=10, d_model=16, n_layers=1, n_heads=2, max_len=8, position="rope")
    assert split_sink("rope+sink_token") == ("rope", True) and split_sink("rope") == ("rope", False)
    plain, token = with_sink(resolve("rope", base), False), with_sink(resolve("rope", base), True)
    assert plain.content_hash() == resolve("rope", base).content_hash() and sink_id(plain) is None
    assert token.content_hash() != plain.content_hash() and token.vocab_size == 11 and sink_id(token) == 10
    x = torch.tensor([[1, 2, 3, 4]])
    assert led_by_sink(x, 10).tolist() == [[10, 1, 2, 3]] and led_by_sink(x, None) is x


def test_recomputation_puts_the_sink_token_first_in_every_window():
    from suites.streaming.policies import stream_nll
    from variants.models.transformer import build
    from variants.spec import TransformerSpec

    torch.manual_seed(0)
    model = build(
        TransformerSpec(vocab_size=11, d_model=16, n_layers=1, n_heads=2, max_len=8, position="rope", kernel="naive")
    ).eval()
    tokens = torch.cat((torch.full((1, 1), 10), torch.randint(0, 10, (1, 11))), dim=1)  # (1, 12): the sink first
    nll, _ = stream_nll(model, tokens, "recompute", 4, 1, lead=10)
    t = 9  # the window of the last 4 tokens at step 9 is [sink, tokens 7..9]
    window = torch.cat((tokens[:, :1], tokens[:, 7:10]), dim=1)
    expected = torch.nn.functional.cross_entropy(model(window)[:, -1], tokens[:, t + 1])
    assert torch.allclose(nll[0, t], expected)
