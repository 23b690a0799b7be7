"""What several suites share: the character-LM recipe, seq2seq data and decoding, BLEU, trained-weight reuse and the corpora.

- ``lm``: random training batches, next-token loss, windowed held-out scoring under a named protocol, Xavier init;
- ``learning``: the checks that a trained model learnt beyond the data's n-gram entropies, and their report section;
- ``checkpoints``: trained weights kept next to the results, so that one training serves every job that evaluates it;
- ``seq2seq``: tokenised splits, length-sorted batches, teacher-forced loss, greedy and beam translation;
- ``bleu``: corpus BLEU and chrF (sacreBLEU) and source-length buckets;
- ``data``: the corpora (pydoc, the World English Bible, parallel corpora), their tokenizers and the copy task.

Nothing here registers a suite, and nothing here imports a suite's package (tests/unit/test_import_direction.py).
"""
