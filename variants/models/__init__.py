"""The models a spec builds, and what they are built of beyond the axes.

The decoder-only Transformer (transformer.py, ``build``), its encoder-decoder (seq2seq_transformer.py), the RNN
encoder-decoder (rnn.py with its global attention, rnn_attention.py; seq2seq.py builds either from its spec), the
recurrent LM (recurrent.py), the sequence-mixer LM (mixer_lm.py), one layer of each kind for cost measurements
(sequence_layer.py, mixer_layer.py), the one table of recurrent cells (rnn_cells.py), the weight initialisation
schemes (init_scheme.py, recurrent_init.py) and the FFN width that matches a grouped-query model's parameters to
its MHA twin's (param_match.py). Nothing is re-exported here: import each module by its path
(``from variants.models.transformer import build``), so that importing one model loads no other.
"""
