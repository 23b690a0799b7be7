"""No position information (NoPE): a causal mask alone orders the tokens (Kazemnejad et al. 2023).

Haviv et al. 2022 and Kazemnejad et al. 2023 (arXiv 2305.19466) show that a causal decoder can infer
positions from the mask; NoPE is the control every other encoding is compared against.
"""

from ._base import PositionEncoding, positions


@positions.register()
class NoPosition(PositionEncoding):
    """No position encoding; every hook is the identity."""
