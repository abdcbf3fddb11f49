#!/usr/bin/env bash
# Alignment error rate of every language pair on its gold dev set (XL-WA's; Europarl's for en-fr
# and en-de, with possible links), through `attn align --pair`, one line per pair and method:
#
#   tools/eval_pairs.sh [-m MODEL] [--methods "M1 M2 ..."] [--thresholds "T1 T2 ..."] [en-XX ...]
#
# Default methods: the pair's default (--pair alone), hmm, and the attention-only extractions
# argmax, intersection, union, grow-diag-final-and, soft-itermax and soft-threshold at each of
# --thresholds (default 0.1 0.15 0.2 0.25 0.3). -m MODEL aligns with that translation model (a
# multilingual file is set to each pair's language forward and to English in reverse) instead of
# the pair's shipped attention models. Prints TSV: pair, method, AER, precision, recall.
# ATTN=path/to/attn to use another build (default build/bin/attn).
set -euo pipefail
cd "$(dirname "$0")/.."
attn=${ATTN:-build/bin/attn}
model=""
methods="default hmm argmax intersection union grow-diag-final-and soft-itermax soft-threshold"
thresholds="0.1 0.15 0.2 0.25 0.3"
pairs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -m) model=$2; shift 2 ;;
    --methods) methods=$2; shift 2 ;;
    --thresholds) thresholds=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) pairs+=("$1"); shift ;;
  esac
done
[ ${#pairs[@]} -gt 0 ] || pairs=(en-es en-bg en-da en-de en-et en-fr en-hu en-it en-nl en-pt en-ru en-sl)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gold_of() {  # the gold dev set of language XX
  case "$1" in
    de|fr) echo ../shared/data/europarl-gold/$1/dev.tsv ;;
    *) echo ../shared/data/xl-wa/$1/dev.tsv ;;
  esac
}

printf 'pair\tmethod\tAER\tprecision\trecall\n'
for pair in "${pairs[@]}"; do
  xx=${pair#en-}
  gold=$(gold_of "$xx")
  awk -F'\t' '{print $1 " ||| " $2}' "$gold" > "$work/in"
  for method in $methods; do
    runs=("")
    [ "$method" = soft-threshold ] && runs=($thresholds)
    for threshold in "${runs[@]}"; do
      args=(align --pair "$pair")
      label=$method
      if [ "$method" != default ]; then args+=(--method "$method"); fi
      if [ -n "$threshold" ]; then args+=(--threshold "$threshold"); label="$method $threshold"; fi
      if [ -n "$model" ] && [ "$method" != default ] && [ "$method" != hmm ]; then
        args+=(-m "$model")
        case "$method" in argmax) ;; *) args+=(-r "$model") ;; esac
      fi
      if ! "$attn" "${args[@]}" -i "$work/in" > "$work/out" 2> "$work/err"; then
        printf '%s\t%s\t(%s)\n' "$pair" "$label" "$(head -c 200 "$work/err" | tr '\n' ' ')"
        continue
      fi
      "$attn" aer "$gold" "$work/out" | awk -v p="$pair" -v m="$label" '
        {v[$1] = $2} END {printf "%s\t%s\t%s\t%s\t%s\n", p, m, v["AER"], v["precision"], v["recall"]}'
    done
  done
done
