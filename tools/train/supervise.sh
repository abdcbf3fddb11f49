#!/usr/bin/env bash
# The alignment supervision of the Transformer's head (Garg et al. 2019): each training pair's
# word links from the pair's statistical aligner, both directions symmetrized
# (`attn align --method hmm`), one Pharaoh line per pair.
#
#   tools/train/supervise.sh [XX ...]        default: every data/en-XX/
#
# Writes data/en-XX/train.align (and data/train.align for the legacy en-es data; NAME.align for the
# corpora beside the splits, extra and prose, where built) from
# models/hmm-en-XX.safetensors, or, for a pair with no shipped aligner yet, from an HMM trained
# here on the pair's train split (data/en-XX/hmm-5-5.safetensors: words cut to 5 characters,
# the setting most shipped pairs chose on XL-WA's silver links).
# Needs build/bin/attn (cmake --build build/native --target attn_cli).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
attn="$root/build/bin/attn"
[ -x "$attn" ] || { echo "missing $attn: cmake --build build/native --target attn_cli" >&2; exit 1; }

langs=("$@")
if [ ${#langs[@]} -eq 0 ]; then
  for d in "$root"/data/en-*/; do langs+=("$(basename "$d" | sed 's/^en-//')"); done
fi

align() {  # align HMM EN XX OUT
  paste -d '\t' "$2" "$3" | awk -F'\t' '{print $1 " ||| " $2}' > "$4.in"
  "$attn" align --method hmm --hmm "$1" -i "$4.in" > "$4.tmp"
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
  align "$hmm" "$data/train.en" "$data/train.$xx" "$data/train.align"
  # the corpora beside the splits that train.py --corpora may add (tools/data/extra.py, prose.py)
  for name in extra prose; do
    [ ! -f "$data/$name.$xx" ] || align "$hmm" "$data/$name.en" "$data/$name.$xx" "$data/$name.align"
  done
  if [ "$xx" = es ] && [ -f "$root/data/train.en" ]; then
    align "$hmm" "$root/data/train.en" "$root/data/train.es" "$root/data/train.align"
  fi
  echo "en-$xx: $(wc -l < "$data/train.align") pairs aligned with $(basename "$hmm") in $((SECONDS - start)) s"
done
