#!/usr/bin/env bash
# What the statistical aligners reach on each pair built by build.sh: trains IBM Model 2 and the
# HMM on data/en-XX/train.{en,XX} and scores them on the XL-WA gold set (AER = 1 - F1 there).
#
#   tools/data/aer.sh [en-XX ...]      (default: every data/en-XX/; needs build/bin/attn:
#                                       cmake --build build/native --target attn_cli)
#
# Writes data/en-XX/aer.tsv (method, AER, precision, recall, seconds) and the models to
# data/en-XX/{ibm2,hmm}-en-XX.safetensors; prints one table line per pair.
# XL-WA columns are English first, so English is the source side (links English-XX).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
attn="$root/build/bin/attn"
xl_wa="$root/../shared/data/xl-wa"
[ -x "$attn" ] || { echo "missing $attn: cmake --build build/native --target attn_cli" >&2; exit 1; }

pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
  for d in "$root"/data/en-*/; do pairs+=("$(basename "$d")"); done
fi

score() {  # score NAME GOLD ALIGN-ARGS... : one aer.tsv line
  local name=$1 gold=$2
  shift 2
  local start=$SECONDS
  "$attn" align "$@" -i "$work/in" > "$work/$name.out"
  "$attn" aer "$gold" "$work/$name.out" |
    awk -v n="$name" -v s=$((SECONDS - start)) '{v[$1]=$2} END {print n "\t" v["AER"] "\t" v["precision"] "\t" v["recall"] "\t" s}'
}

echo -e "pair\ttrain pairs\tibm2 s\thmm s\tibm2 (gdfa)\thmm (posterior 0.35)\thmm (gdfa)\thmm (viterbi gdfa)"
for pair in "${pairs[@]}"; do
  xx=${pair#en-}
  data="$root/data/$pair"
  gold="$xl_wa/$xx/dev.tsv"
  work=$(mktemp -d)
  awk -F'\t' '{print $1 " ||| " $2}' "$gold" > "$work/in"
  start=$SECONDS
  "$attn" ibm2-train -s "$data/train.en" -t "$data/train.$xx" -o "$data/ibm2-$pair.safetensors" 2>/dev/null
  ibm2_s=$((SECONDS - start))
  start=$SECONDS
  "$attn" hmm-train -s "$data/train.en" -t "$data/train.$xx" -o "$data/hmm-$pair.safetensors" 2>/dev/null
  hmm_s=$((SECONDS - start))
  {
    echo -e "method\tAER\tprecision\trecall\tseconds"
    score ibm2-gdfa "$gold" --method ibm2 --ibm2 "$data/ibm2-$pair.safetensors"
    score hmm-posterior "$gold" --method hmm --hmm "$data/hmm-$pair.safetensors"
    score hmm-gdfa "$gold" --method hmm --hmm "$data/hmm-$pair.safetensors" --symmetrize grow-diag-final-and
    score hmm-viterbi-gdfa "$gold" --method hmm --hmm "$data/hmm-$pair.safetensors" --viterbi
  } > "$data/aer.tsv"
  rm -rf "$work"
  echo -e "$pair\t$(wc -l < "$data/train.en")\t$ibm2_s\t$hmm_s\t$(awk -F'\t' 'NR>1 {printf "%s%s", sep, $2; sep="\t"}' "$data/aer.tsv")"
done
