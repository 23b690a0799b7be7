"""``bench compare``: paired comparisons of two groups of records."""
