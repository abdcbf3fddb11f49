#!/usr/bin/env bash
# Alignment error rate of every language pair on its gold dev set (XL-WA's; Europarl's for en-fr
# and en-de, NIST's for en-zh, with possible links), through `attn align --pair`, one line per pair
# and method:
#
#   tools/eval/pairs.sh [-m MODEL] [--methods "M1 M2 ..."] [--thresholds "T1 T2 ..."] [en-XX ...]
#   tools/eval/pairs.sh --record models/dev-aer.tsv
#
# Default methods: the pair's default (--pair alone), hmm, and the attention-only extractions
# argmax, intersection, union, grow-diag-final-and, soft-itermax and soft-threshold at each of
# --thresholds (default 0.1 0.15 0.2 0.25 0.3). -m MODEL aligns with that translation model (a
# multilingual file is set to each pair's language forward and to English in reverse) instead of
# the pair's shipped attention models. Prints TSV: pair, method, AER, precision, recall.
# --record FILE measures every method of every pair as `attn align --pair P --method M` runs it
# with the shipped models and its default threshold (what the explorer shows beside each method
# and under each figure), and writes the table to FILE with the SHA-256 of each model file it used
# (tests/cli/dev-aer.test.mjs fails when a shipped file no longer matches: measure again).
# ATTN=path/to/attn to use another build (default build/bin/attn); ALIGN_ARGS="--statistical-weight
# 0.5" adds options to every `attn align` (not with --record).
set -euo pipefail
cd "$(dirname "$0")/../.."
attn=${ATTN:-build/bin/attn}
model=""
record=""
methods="default hmm argmax intersection union grow-diag-final-and soft-itermax soft-threshold"
thresholds="0.1 0.15 0.2 0.25 0.3"
pairs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -m) model=$2; shift 2 ;;
    --methods) methods=$2; shift 2 ;;
    --thresholds) thresholds=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) pairs+=("$1"); shift ;;
  esac
done
[ ${#pairs[@]} -gt 0 ] || pairs=(en-es en-bg en-da en-de en-et en-fr en-hu en-it en-nl en-pt en-ru en-sl en-zh)
if [ -n "$record" ]; then
  [ -z "$model" ] || { echo "eval_pairs.sh: --record measures the shipped models; leave out -m" >&2; exit 2; }
  methods=$({ "$attn" --help 2>&1 || true; } | awk '/^alignment methods/ {on = 1; next} on && /^  [a-z]/ {print $1; next} on {exit}' | tr '\n' ' ')
  thresholds=""
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gold_of() {  # the gold dev set of language XX
  case "$1" in
    de|fr) echo ../shared/data/europarl-gold/$1/dev.tsv ;;
    zh) echo ../shared/data/nist-zh-gold/dev.tsv ;;
    *) echo ../shared/data/xl-wa/$1/dev.tsv ;;
  esac
}

if [ -n "$record" ]; then
  exec > "$record.partial"
  echo "# Dev-set AER of every language pair's alignment methods, as \`attn align --pair P --method M\`"
  echo "# gives them with the shipped models and default thresholds, on the gold dev sets (XL-WA's;"
  echo "# Europarl's for en-de and en-fr, NIST's for en-zh). Written by tools/eval/pairs.sh --record; do not edit."
  echo "# The models measured (any change to one of them makes this table stale):"
  for file in models/*.safetensors; do
    case $(basename "$file") in captioner*) continue ;; esac  # images: no alignment
    [ -L "$file" ] || echo "# model $(basename "$file") sha256 $(sha256sum "$file" | cut -d' ' -f1)"
  done
fi
printf 'pair\tmethod\tAER\tprecision\trecall\n'
for pair in "${pairs[@]}"; do
  xx=${pair#en-}
  gold=$(gold_of "$xx")
  awk -F'\t' '{print $1 " ||| " $2}' "$gold" > "$work/in"
  for method in $methods; do
    runs=("")
    [ "$method" = soft-threshold ] && [ -n "$thresholds" ] && runs=($thresholds)
    for threshold in "${runs[@]}"; do
      args=(align --pair "$pair")
      # shellcheck disable=SC2206  # words on purpose
      [ -n "$record" ] || args+=(${ALIGN_ARGS:-})
      label=$method
      if [ "$method" != default ]; then args+=(--method "$method"); fi
      if [ -n "$threshold" ]; then args+=(--threshold "$threshold"); label="$method $threshold"; fi
      if [ -n "$model" ] && [ "$method" != default ] && [ "$method" != hmm ]; then
        args+=(-m "$model")
        case "$method" in argmax) ;; *) args+=(-r "$model") ;; esac
      fi
      if ! "$attn" "${args[@]}" -i "$work/in" > "$work/out" 2> "$work/err"; then
        # a method the pair cannot run (no file for it) is left out of a record
        [ -n "$record" ] || printf '%s\t%s\t(%s)\n' "$pair" "$label" "$(head -c 200 "$work/err" | tr '\n' ' ')"
        continue
      fi
      "$attn" aer "$gold" "$work/out" | awk -v p="$pair" -v m="$label" '
        {v[$1] = $2} END {printf "%s\t%s\t%s\t%s\t%s\n", p, m, v["AER"], v["precision"], v["recall"]}'
    done
  done
done
if [ -n "$record" ]; then mv "$record.partial" "$record"; fi
