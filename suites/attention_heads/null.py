"""The null a count of specialised heads is judged against: the same heads with the key positions shuffled.

Shuffle, independently for every scored query i of every window, which of the keys it may see (0 .. i) each of its
attention weights lands on. Whatever the head's attention, the weight that lands at offset d is then a uniformly
drawn one of the query's i + 1 weights: its mean is 1 / (i + 1) (0 where i < d), and the mean over the scored queries
is largest at d = 1 (``offset_mean``). The delimiter share's mean is the share of delimiters among the keys the query
sees, whose mean over the scored queries is what attending evenly would put there (``delimiter_base``, recorded per
job). Each query's term lies in [0, 1] and the shuffles are independent, so by Hoeffding's inequality the share of one
head at one offset, averaged over Q scored queries, rises t above its mean with probability at most exp(-2 Q t^2);
over the M statistics a model has (heads x offsets), at most M exp(-2 Q t^2). ``bound`` is the mean plus the t that
makes that chance ``DELTA``: with the bar above the bound, a shuffled model has no specialised head except with
probability below ``DELTA``, so the null's count is 0 in every seed; with the bar at or below it, a shuffled head
could reach the bar by chance and the count of heads above it says nothing about specialisation (too few queries
scored: the claims' precondition).
"""

from __future__ import annotations

import math

#: the first scored query of a window: the query at position 0 can only attend to itself (suite.py reads from here)
FIRST_QUERY = 1
#: the chance, over a model's every head (and offset), that a shuffled head rises above the null's bound
DELTA = 1e-6


def scored_queries(windows: int, length: int, first_query: int = FIRST_QUERY) -> int:
    """The queries a head's statistics average over: every window's positions first_query .. length - 1."""
    return int(windows) * max(0, int(length) - first_query)


def offset_mean(length: int, first_query: int = FIRST_QUERY) -> float:
    """The largest mean, over offsets d >= 1, of a shuffled head's share at offset d: at d = 1, the mean over the
    scored queries i of 1 / (i + 1)."""
    queries = range(max(first_query, 1), length)
    return sum(1.0 / (i + 1) for i in queries) / max(1, length - first_query)


def hoeffding(queries: int, statistics: int, delta: float = DELTA) -> float:
    """The t above its mean that none of ``statistics`` means of ``queries`` independent terms in [0, 1] exceeds
    except with probability ``delta`` (Hoeffding's inequality with a union bound); inf without queries."""
    if queries <= 0:
        return math.inf
    return math.sqrt(math.log(max(1, statistics) / delta) / (2.0 * queries))


def offset_bound(windows: int, length: int, heads: int, first_query: int = FIRST_QUERY) -> float:
    """The share at any offset d >= 1 that no head of a shuffled model exceeds except with probability DELTA."""
    offsets = max(1, length - 1)
    return offset_mean(length, first_query) + hoeffding(scored_queries(windows, length, first_query), heads * offsets)


def delimiter_bound(base: float, windows: int, length: int, heads: int, first_query: int = FIRST_QUERY) -> float:
    """The delimiter share no head of a shuffled model exceeds except with probability DELTA (``base``: what even
    attention over the visible keys puts on delimiters, the shuffled share's mean)."""
    return base + hoeffding(scored_queries(windows, length, first_query), heads)


def null_count(bound: float, bar: float, heads: int) -> int:
    """The specialised heads a shuffled model may have: none while the bar lies above the null's bound (but with
    probability DELTA), otherwise every head (the bar does not tell a specialised head from a shuffled one)."""
    return 0 if bar > bound else int(heads)


__all__ = [
    "FIRST_QUERY",
    "DELTA",
    "scored_queries",
    "offset_mean",
    "hoeffding",
    "offset_bound",
    "delimiter_bound",
    "null_count",
]
