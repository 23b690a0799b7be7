"""Self-attention layers of the decoder's blocks: each module registers one under its file name."""

from ._base import SelfAttention, attentions, latent_dims

__all__ = ["SelfAttention", "attentions", "latent_dims"]
