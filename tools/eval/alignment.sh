#!/usr/bin/env bash
# Alignment error rate on the XL-WA English-Spanish dev set (../shared/data/xl-wa-es-dev, 105
# pairs, sure links) for every shipped model and extraction method, as a Markdown table.
#   tools/eval/alignment.sh [MODELS_DIR]        (after ./run build; ATTN=path/to/attn to use another build)
set -euo pipefail
cd "$(dirname "$0")/../.."
models=${1:-models}
dev=../shared/data/xl-wa-es-dev/dev.tsv
attn=${ATTN:-build/bin/attn}
[ -f "$dev" ] || { echo "no $dev" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -F'\t' '{print $1 " ||| " $2}' "$dev" >"$work/en-es"
awk -F'\t' '{print $2 " ||| " $1}' "$dev" >"$work/es-en"

score() {  # score LABEL FILE_OF_LINKS
  local result
  result=$("$attn" aer "$dev" "$2" | awk '{printf "%s ", $2}')
  read -r aer precision recall <<<"$result"
  printf '| %s | %s | %s | %s |\n' "$1" "$aer" "$precision" "$recall"
}

swap() { awk '{for (i = 1; i <= NF; i++) {split($i, a, "-"); printf "%s%s-%s", (i > 1 ? " " : ""), a[2], a[1]} print ""}'; }

echo "| model and method | AER | precision | recall |"
echo "|---|---|---|---|"
# a diagonal baseline: target word t links to source word round(t * S / T)
awk -F'\t' '{S = split($1, s, " "); T = split($2, t, " "); line = "";
  for (j = 0; j < T; j++) { i = int(j * S / T + 0.5); if (i >= S) i = S - 1; line = line (j ? " " : "") i "-" j }
  print line}' "$dev" >"$work/diagonal"
score "diagonal baseline" "$work/diagonal"
if [ -f "$models/ibm2-en-es.safetensors" ]; then
  "$attn" align --method ibm2 --symmetrize grow-diag-final-and --ibm2 "$models/ibm2-en-es.safetensors" -i "$work/en-es" >"$work/ibm2"
  score "IBM Model 2 (fast_align prior), grow-diag-final-and" "$work/ibm2"
fi
hmm=$models/hmm-en-es.safetensors
if [ -f "$hmm" ]; then
  "$attn" align --method hmm --hmm "$hmm" --symmetrize grow-diag-final-and -i "$work/en-es" >"$work/out"
  score "HMM, posterior decoding, grow-diag-final-and" "$work/out"
  "$attn" align --method hmm --hmm "$hmm" --viterbi --symmetrize grow-diag-final-and -i "$work/en-es" >"$work/out"
  score "HMM, Viterbi, grow-diag-final-and" "$work/out"
  for threshold in 0.3 0.4 0.5; do
    "$attn" align --method hmm --hmm "$hmm" --symmetrize posterior --posterior-threshold "$threshold" -i "$work/en-es" >"$work/out"
    score "HMM, mean posterior >= $threshold" "$work/out"
  done
fi
for model in "$models"/en-es-*.safetensors; do
  name=$(basename "$model" .safetensors)
  for method in argmax itermax threshold; do
    for shift in "" --shift; do
      "$attn" align -m "$model" --method "$method" $shift -i "$work/en-es" >"$work/out"
      score "$name, $method${shift:+ (shift)}" "$work/out"
    done
  done
done
for model in "$models"/es-en-*.safetensors; do
  [ -f "$model" ] || continue
  name=$(basename "$model" .safetensors)
  for shift in "" --shift; do
    "$attn" align -m "$model" --method argmax $shift -i "$work/es-en" | swap >"$work/out"
    score "$name, argmax${shift:+ (shift)}" "$work/out"
  done
  for forward in "$models"/en-es-*.safetensors; do
    pair="$(basename "$forward" .safetensors) + $name"
    for method in intersection union grow-diag-final-and soft-itermax; do
      for shift in "" --shift; do
        "$attn" align -m "$forward" -r "$model" --method "$method" $shift -i "$work/en-es" >"$work/out"
        score "$pair, $method${shift:+ (shift)}" "$work/out"
      done
    done
    if [ -f "$models/ibm2-en-es.safetensors" ]; then
      for weight in 0.3 0.5 0.7; do
        for shift in "" --shift; do
          "$attn" align -m "$forward" -r "$model" --method hybrid --statistical-weight "$weight" $shift \
            --statistical ibm2 --symmetrize grow-diag-final-and --ibm2 "$models/ibm2-en-es.safetensors" -i "$work/en-es" >"$work/out"
          score "$pair + IBM Model 2 (weight $weight), hybrid${shift:+ (shift)}" "$work/out"
        done
      done
    fi
    if [ -f "$hmm" ]; then
      for weight in 0.3 0.5 0.6 0.7 0.85; do
        "$attn" align -m "$forward" -r "$model" --method hybrid --statistical hmm --hmm "$hmm" --statistical-weight "$weight" \
          --symmetrize grow-diag-final-and -i "$work/en-es" >"$work/out"
        score "$pair + HMM (weight $weight), hybrid, grow-diag-final-and" "$work/out"
        for threshold in 0.3 0.35 0.4; do
          "$attn" align -m "$forward" -r "$model" --method hybrid --statistical hmm --hmm "$hmm" --statistical-weight "$weight" \
            --symmetrize posterior --posterior-threshold "$threshold" -i "$work/en-es" >"$work/out"
          score "$pair + HMM (weight $weight), hybrid, mean >= $threshold" "$work/out"
        done
      done
      for weight in 0.7 0.8 0.9; do
        "$attn" align -m "$forward" -r "$model" --method hybrid --statistical hmm --hmm "$hmm" --statistical-weight "$weight" \
          --mix geometric --symmetrize grow-diag-final-and -i "$work/en-es" >"$work/out"
        score "$pair + HMM (weight $weight), geometric hybrid, grow-diag-final-and" "$work/out"
      done
    fi
  done
done
"$attn" align -i "$work/en-es" >"$work/out"
score "attn align with no options (the default)" "$work/out"
