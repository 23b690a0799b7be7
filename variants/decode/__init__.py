"""Decoding: the KV caches a self-attention layer decodes with, their sizes, and the searches that decode.

The cache protocol and the caches that grow (kv_cache.py), the rolling cache of a sliding window (rolling_cache.py),
the cache of a step captured in a CUDA graph (static_cache.py, driven by static_decode.py), the latent cache of
multi-head latent attention (latent_cache.py); cache bytes by formula and as measured (cache_size.py); greedy
generation of a decoder LM (generate.py) and greedy and beam search of a sequence-to-sequence model
(beam_search.py). Nothing is re-exported here: import each module by its path.
"""
