#!/usr/bin/env bash
# Regenerate every reference report, figure, the index, the support matrix and the README's generated block from
# reference/results/ alone, in place: with nothing new recorded, `git status` is clean afterwards when the code
# writes the same pages (make reference-reports). The suites are the registry's, in make reference's order
# (bench/reference.py), except that translation's bottleneck profile comes last: the index's translation row is
# that group's.
set -euo pipefail
BIN=${BIN:-.venv/bin}
DIR=${REFERENCE_DIR:-reference}
cost=$($BIN/python -m bench.reference cost)
training=$($BIN/python -m bench.reference training)
for suite in $cost; do
  $BIN/bench report suite=$suite profile=quick results_dir=$DIR/results reports_dir=$DIR/reports
done
$BIN/bench report suite=translation profile=standard results_dir=$DIR/results reports_dir=$DIR/reports/bible_en_es index=false
for suite in $training; do
  [ $suite = translation ] && continue  # its bottleneck profile last, below
  $BIN/bench report suite=$suite profile=standard results_dir=$DIR/results reports_dir=$DIR/reports
done
$BIN/bench report suite=translation profile=bottleneck results_dir=$DIR/results reports_dir=$DIR/reports
$BIN/python -m bench.report.readme $DIR/results $DIR/reports README.md
