"""Corpora and tokenizers; nothing here downloads anything."""
