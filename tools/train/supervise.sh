#!/usr/bin/env bash
# The alignment supervision of the Transformer's head (Garg et al. 2019): each training pair's
# word links from the pair's statistical aligner, both directions symmetrized
# (`attn align --method hmm`), one Pharaoh line per pair.
#
#   tools/train/supervise.sh [--method hybrid] [XX ...]        default: every data/en-XX/
#
# --method hybrid: the links of `attn align --pair en-XX` instead (the pair's default, the hybrid
# of the shipped Transformer's attention with the pair's HMM: better links on every dev set, and a
# head trained on them learns from the model's own attention as well as the HMM's), for a pair with
# a shipped Transformer; the others keep the HMM's.
#
# Writes data/en-XX/train.align (and data/train.align for the legacy en-es data; NAME.align for the
# corpora beside the splits, extra and prose, where built; data/en-XX/supervision names the method) from
# models/hmm-en-XX.safetensors, or, for a pair with no shipped aligner yet, from an HMM trained
# here on the pair's train split (data/en-XX/hmm-5-5.safetensors: words cut to 5 characters,
# the setting most shipped pairs chose on XL-WA's silver links).
# Needs build/bin/attn (cmake --build build/native --target attn_cli).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
attn="$root/build/bin/attn"
[ -x "$attn" ] || { echo "missing $attn: cmake --build build/native --target attn_cli" >&2; exit 1; }

method=hmm
if [ "${1:-}" = --method ]; then
  method=${2:-}
  shift 2 || true
fi
[ "$method" = hmm ] || [ "$method" = hybrid ] || { echo "supervise.sh: --method is hmm or hybrid, not '$method'" >&2; exit 2; }
langs=("$@")
if [ ${#langs[@]} -eq 0 ]; then
  for d in "$root"/data/en-*/; do langs+=("$(basename "$d" | sed 's/^en-//')"); done
fi

align() {  # align HMM EN XX OUT (HMM: a file, or --pair en-XX for the pair's default method)
  paste -d '\t' "$2" "$3" | awk -F'\t' '{print $1 " ||| " $2}' > "$4.in"
  case "$1" in
    --pair*) ATTN_MODELS="$root/models" "$attn" align --pair "${1#--pair }" -i "$4.in" > "$4.tmp" ;;
    *) "$attn" align --method hmm --hmm "$1" -i "$4.in" > "$4.tmp" ;;
  esac
  rm "$4.in"
  [ "$(wc -l < "$4.tmp")" -eq "$(wc -l < "$2")" ] || { echo "$4: line count differs from $2" >&2; exit 1; }
  mv "$4.tmp" "$4"
}

for xx in "${langs[@]}"; do
  data="$root/data/en-$xx"
  start=$SECONDS
  hmm="$root/models/hmm-en-$xx.safetensors"
  if [ ! -f "$hmm" ]; then
    hmm="$data/hmm-5-5.safetensors"
    if [ ! "$hmm" -nt "$data/train.$xx" ]; then
      "$attn" hmm-train -s "$data/train.en" -t "$data/train.$xx" -o "$hmm" --min-probability 1e-4 \
        --source-prefix 5 --target-prefix 5 2>/dev/null
    fi
  fi
  # the hybrid needs a shipped pair (`attn align --pair` refuses one models/pairs.json lacks)
  if [ "$method" = hybrid ] && ATTN_MODELS="$root/models" "$attn" align --pair "en-$xx" <<< "a ||| a" >/dev/null 2>&1; then
    hmm="--pair en-$xx"
  fi
  align "$hmm" "$data/train.en" "$data/train.$xx" "$data/train.align"
  # the corpora beside the splits that train.py --corpora may add (tools/data/extra.py, prose.py)
  for name in extra prose; do
    [ ! -f "$data/$name.$xx" ] || align "$hmm" "$data/$name.en" "$data/$name.$xx" "$data/$name.align"
  done
  if [ "$xx" = es ] && [ -f "$root/data/train.en" ]; then
    align "$hmm" "$root/data/train.en" "$root/data/train.es" "$root/data/train.align"
  fi
  by=$(basename -- "$hmm") used=hmm
  [ "${hmm#--pair }" = "$hmm" ] || { by="attn align $hmm (its hybrid)"; used=hybrid; }
  echo "$used" > "$data/supervision"  # what the trainer records in the file it exports
  echo "en-$xx: $(wc -l < "$data/train.align") pairs aligned with $by in $((SECONDS - start)) s"
done
