"""How variants are compared: suites, their profiles and metrics, and the data they use."""
