#!/usr/bin/env bash
# Regenerate every reference report, figure, the index, the support matrix and the README's generated block from
# reference/results/ alone, in place: with nothing new recorded, `git status` is clean afterwards when the code
# writes the same pages (make reference-reports). translation's bottleneck profile comes last: the index's
# translation row is that group's.
set -euo pipefail
BIN=${BIN:-.venv/bin}
DIR=${REFERENCE_DIR:-reference}
for suite in kv_cache attention_cost sequence_cost; do
  $BIN/bench report suite=$suite profile=quick results_dir=$DIR/results reports_dir=$DIR/reports
done
$BIN/bench report suite=translation profile=standard results_dir=$DIR/results reports_dir=$DIR/reports/bible_en_es index=false
for suite in position_extrapolation attention_heads language_modeling attention_scaling training_stability \
  gradient_flow recall streaming scaling attention_explanation retrieval_length translation; do
  profile=standard; [ $suite = translation ] && profile=bottleneck
  $BIN/bench report suite=$suite profile=$profile results_dir=$DIR/results reports_dir=$DIR/reports
done
$BIN/python -m bench.report.readme $DIR/results $DIR/reports README.md
