#!/usr/bin/env bash
# scripts/plot-accuracy.sh CSV [OUT.svg] — the accuracy study's plot (docs/ACCURACY.md) with gnuplot:
# ||C - C64||_F / ||C64||_F against K, one panel per input class, one line per column, both axes
# logarithmic. CSV: tsgemm-accuracy's output (class,k,column,error,ratio; '#' lines ignored).
set -euo pipefail
csv=${1:?usage: plot-accuracy.sh CSV [OUT.svg]}
out=${2:-docs/accuracy.svg}
command -v gnuplot >/dev/null || { echo "plot-accuracy.sh: needs gnuplot (Debian: gnuplot-nox)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one data file per (class, column): "k error" lines in k order
grep -v '^#' "$csv" | tail -n +2 | while IFS=, read -r cls k col err _; do
  echo "$k $err" >> "$work/$cls-$col.dat"
done
cols="cublas-fp32 tsgemm-fp32 tsgemm-3xtf32 cublas-fasttf32 tsgemm-tf32"
{
  echo "set terminal svg size 1200,420 dynamic font 'sans,11'"
  echo "set output '$out'"
  echo "set multiplot layout 1,3 title 'relative Frobenius error vs K (m = n = 512, NN; reference FP64)'"
  echo "set logscale x 2; set logscale y; set format x '2^{%L}'; set format y '10^{%L}'; set key top left font ',9'"
  echo "set xlabel 'K'; set grid"
  for cls in uniform samesign wide; do
    case $cls in uniform) t='uniform [-1, 1]';; samesign) t='same sign [0, 1]';; wide) t='wide exponents 2^{-20}..2^{21}';; esac
    echo "set title '$t'"
    plot="plot"
    for c in $cols; do
      [ -f "$work/$cls-$c.dat" ] && plot+=" '$work/$cls-$c.dat' using 1:2 with linespoints title '$c',"
    done
    echo "${plot%,}"
  done
  echo "unset multiplot"
} > "$work/plot.gp"
gnuplot "$work/plot.gp"
echo "$out"
