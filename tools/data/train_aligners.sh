#!/usr/bin/env bash
# The shipped statistical aligners of the language pairs (models/hmm-en-XX.safetensors) and the
# per-pair table of models/MODEL_CARD.md. For each pair built by build.sh:
#   1. trains the HMM on data/en-XX/train.{en,XX} once per candidate of CANDIDATES: "source/target"
#      prefix characters (0 = whole words: hmm-train --source-prefix/--target-prefix), then flags:
#      "a" when both directions train jointly (hmm-train --agreement), "x" when the pair's extra
#      data (data/en-XX/extra.*, build.sh: every catalog of the language and the word lists) is
#      added to train (a pair without it skips its "x" candidates), "p" when the pair's prose
#      (data/en-XX/prose.*: the handbook, the Debian Reference, stories, the Bible) is added,
#      "c" when the other language's
#      compound words are split into words of the training text (hmm-train --target-compounds);
#   2. picks the candidate with which the pair's default (`attn align --pair en-XX --hmm FILE`,
#      the hybrid with the attention models) has the lowest AER on XL-WA's *silver* links
#      (../shared/data/xl-wa/XX/train.tsv, made by statistical aligners; never the gold dev set),
#      which every candidate trains without (held_out.py; since 2026-11-27: those pairs are also
#      in the pairs' training text, where they rank nothing that helps with unseen words),
#      or the smallest file among those within the set's noise of the lowest (choose.py: a paired
#      bootstrap over the set's sentences; until 2026-11-27 fixed margins, 0.003 on silver and
#      0.01 on a 100-sentence dev set);
#      the HMM alone is scored too (the rule until 2026-11-26: it and the default disagree);
#      a pair without silver links (en-de, en-fr) chooses on its Europarl dev set, the set that
#      the French and German issue measures and chooses on (so their dev figures are optimistic);
#   3. trains the chosen candidate again on all the pair's text, the silver pairs too (as every
#      shipped HMM was trained until 2026-11-27), into data/en-XX/hmm-NAME-all.safetensors, and
#      writes that to models/hmm-en-XX.safetensors (entries >= MIN_PROBABILITY kept);
#   4. trains IBM Model 2 for comparison (data/en-XX/ibm2-en-XX.safetensors, not shipped) and
#      scores the shipped HMM, `attn align --pair en-XX` and IBM Model 2 on the gold dev set (IBM
#      Model 2 by grow-diag-final-and, fast_align's usual symmetrization and its better one here:
#      it 0.386 against 0.406 by posterior mean).
#
#   tools/data/train_aligners.sh [en-XX ...]     (default: every data/en-XX/; en-es trains on the
#                                                 legacy data/train.{en,es}, as its RNNs did)
#   CANDIDATES="0/0 5/5 5/5/x 5/5/xp" MIN_PROBABILITY=1e-4 tools/data/train_aligners.sh en-it
#   REUSE=1 ...: keep candidates trained by an older build/bin/attn (the training code is unchanged)
#
# Writes data/en-XX/aligners.tsv (every candidate's silver and dev AER; choice.txt: how often the
# lowest beat each in choose.py's resamples) and prints one table line
# per pair: the chosen candidate, silver AER, dev AER of the HMM, of the default and of IBM Model 2,
# and the shipped file's size; data/en-XX/thresholds.tsv has the chosen model at each threshold.
# About 1 minute of training per candidate and pair on one idle core, 2-5 with the extra data, and
# one more for the chosen one trained on all the text (REUSE=1 and the kept candidates make a
# rerun only score).
# Needs build/bin/attn (cmake --build build/native --target attn_cli).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
attn=${ATTN:-$root/build/bin/attn}  # ATTN: a copy, so that a rebuild during a run does not disturb it
xl_wa="$root/../shared/data/xl-wa"
europarl="$root/../shared/data/europarl-gold"
candidates=${CANDIDATES:-"0/0 5/5 0/0/a 5/5/a 0/0/x 5/5/x 5/5/xc"}
min_probability=${MIN_PROBABILITY:-1e-4}
[ -x "$attn" ] || { echo "missing $attn: cmake --build build/native --target attn_cli" >&2; exit 1; }

pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
  for d in "$root"/data/en-*/; do pairs+=("$(basename "$d")"); done
fi

aer() {  # aer GOLD PREDICTED: the AER alone
  "$attn" aer "$1" "$2" | awk '$1 == "AER" {print $2}'
}

# hmm_train MODEL CORPUS SETTING: the HMM of SETTING ("S/T[/FLAGS]") trained on CORPUS.{en,XX} into
# MODEL, unless MODEL is newer than the pair's data (and its extra data, for an "x" setting) and
# than $attn (REUSE=1: whatever built it)
hmm_train() {
  local model=$1 corpus=$2 source_prefix target_prefix flags stale="" options=()
  IFS=/ read -r source_prefix target_prefix flags <<< "$3"
  if [[ "$flags" == *a* ]]; then options+=(--agreement); fi
  if [[ "$flags" == *c* ]]; then options+=(--target-compounds); fi
  [ "$model" -nt "$data_corpus.$xx" ] || stale=1
  [[ "$flags" != *x* ]] || [ "$model" -nt "$data_extra.$xx" ] || stale=1
  [[ "$flags" != *p* ]] || [ "$model" -nt "$data_prose.$xx" ] || stale=1
  [ "$model" -nt "$attn" ] || [ -n "${REUSE:-}" ] || stale=1
  if [ -n "$stale" ]; then
    "$attn" hmm-train -s "$corpus.en" -t "$corpus.$xx" -o "$model" --min-probability "$min_probability" \
      --source-prefix "$source_prefix" --target-prefix "$target_prefix" "${options[@]}" 2>/dev/null
  fi
}

# with_text OUT FLAGS CORPUS EXTRA PROSE: OUT.{en,XX}, the corpus with the extra data ("x" in
# FLAGS) and the prose ("p") after it
with_text() {
  local lang parts
  for lang in en "$xx"; do
    parts=("$3.$lang")
    [[ "$2" != *x* ]] || parts+=("$4.$lang")
    [[ "$2" != *p* ]] || parts+=("$5.$lang")
    cat "${parts[@]}" > "$1.$lang"
  done
}

echo -e "pair\tcandidate\tsilver AER (default; dev for de/fr)\tHMM dev\tdefault dev\tIBM 2 dev\tbytes"
for pair in "${pairs[@]}"; do
  xx=${pair#en-}
  data="$root/data/$pair"
  # en-es trains on the legacy data that its RNNs trained on (data/train.*, docs/DATA_CARD.md)
  corpus=$data/train
  [ "$pair" = en-es ] && corpus=$root/data/train
  work=$(mktemp -d)
  gold=$xl_wa/$xx
  # French and German have no XL-WA set: their gold set is Europarl's (dev only, with possible
  # links), and no silver set: their candidates are chosen on that dev set, which their issue
  # names as the set to measure and choose on (silver's column is then dev's).
  [ -f "$gold/dev.tsv" ] || gold=$europarl/$xx
  silver=$gold/train.tsv
  [ -f "$silver" ] || silver=$gold/dev.tsv
  # the extra data beside the corpus (en-es: its own, beside the legacy corpus); both without the
  # silver pairs, which then measure text that no candidate trained on
  extra=$data/extra
  data_corpus=$corpus data_extra=$extra  # the files a kept candidate must be newer than
  held=""  # "held-" in the names of candidates trained without the silver pairs
  if [ "$silver" != "$gold/dev.tsv" ]; then
    summary=$("$here/held_out.py" "$silver" "$xx" "$work/held" "$corpus")
    echo "$pair: corpus without the silver pairs: $summary" >&2
    corpus=$work/held held="held-"
    if [ -f "$extra.$xx" ]; then
      "$here/held_out.py" "$silver" "$xx" "$work/held-extra" "$extra" > /dev/null
      extra=$work/held-extra
    fi
  fi
  # the pair's prose (build.sh's step 7), likewise without the silver pairs
  prose=$data/prose
  data_prose=$prose
  if [ -n "$held" ] && [ -f "$prose.$xx" ]; then
    "$here/held_out.py" "$silver" "$xx" "$work/held-prose" "$prose" > /dev/null
    prose=$work/held-prose
  fi
  awk -F'\t' '{print $1 " ||| " $2}' "$silver" > "$work/train.in"
  awk -F'\t' '{print $1 " ||| " $2}' "$gold/dev.tsv" > "$work/dev.in"
  chosen=()  # "name:bytes:the default's links on the choosing set" of every candidate
  declare -A setting_of=()
  echo -e "candidate\tsilver AER (HMM)\tsilver AER (default)\tdev AER (HMM)\tdev AER (default)\tseconds" \
    > "$data/aligners.tsv"
  for setting in $candidates; do
    IFS=/ read -r source_prefix target_prefix flags <<< "$setting"
    name=$source_prefix-$target_prefix suffix="" trained_on=$corpus
    [[ "$flags" == *a* ]] && suffix=a
    if [[ "$flags" == *x* ]]; then
      [ -f "$extra.$xx" ] || { echo "$pair: no $extra.$xx (build.sh without --no-extra): $setting skipped" >&2; continue; }
      suffix=${suffix}x
    fi
    if [[ "$flags" == *p* ]]; then
      [ -f "$prose.$xx" ] || { echo "$pair: no $prose.$xx (build.sh without --no-prose): $setting skipped" >&2; continue; }
      suffix=${suffix}p
    fi
    if [[ "$flags" == *[xp]* ]]; then
      trained_on=$work/with-$flags
      with_text "$trained_on" "$flags" "$corpus" "$extra" "$prose"
    fi
    [[ "$flags" == *c* ]] && suffix=${suffix}c
    [ -n "$suffix" ] && name=$name-$suffix
    # each candidate is kept (data/en-XX/[held-]hmm-S-T[-FLAGS].safetensors) and reused while newer
    # than the data; "held-" marks one trained without the silver pairs (none before 2026-11-27)
    model="$data/${held}hmm-$name.safetensors"
    start=$SECONDS
    hmm_train "$model" "$trained_on" "$setting"
    setting_of[$name]="$setting"
    seconds=$((SECONDS - start))
    # the HMM alone and the pair's default (`attn align --pair`: the hybrid with the attention
    # models) with this candidate, on the silver links and on the gold dev set
    scores=()
    for input in train dev; do
      reference=$silver
      [ $input = dev ] && reference=$gold/dev.tsv
      "$attn" align --method hmm --hmm "$model" -i "$work/$input.in" > "$work/hmm.out"
      "$attn" align --pair "$pair" --hmm "$model" -i "$work/$input.in" > "$work/default-$input-$name.out"
      scores+=("$(aer "$reference" "$work/hmm.out")" "$(aer "$reference" "$work/default-$input-$name.out")")
    done
    echo -e "$setting\t${scores[0]}\t${scores[1]}\t${scores[2]}\t${scores[3]}\t$seconds" >> "$data/aligners.tsv"
    chosen+=("$name:$(stat -c %s "$model"):$work/default-train-$name.out")
  done
  # chosen on what users get, the default's silver AER: the smallest file among the candidates
  # within the set's noise of the lowest, since the page downloads the file (en-fr's whole words
  # with the extra data, 8.6 MB, against 4.6 MB for its 5-character prefixes, 0.005 apart on
  # Europarl's dev set). Noise: a paired bootstrap over the set's sentences (choose.py; until
  # 2026-11-27 fixed margins, 0.01 on a 100-sentence gold set and 0.003 on the silver pairs).
  "$here/choose.py" "$silver" "${chosen[@]}" > "$work/choice" 2> "$data/choice.txt" ||
    { cat "$data/choice.txt" >&2; exit 1; }
  read -r best_aer _ best < "$work/choice"
  shipped="$data/${held}hmm-$best.safetensors"
  if [ "$corpus" != "$data_corpus" ]; then
    # chosen without the silver pairs; shipped trained on all the pair's text, as before 2026-11-27
    trained_on=$data_corpus
    IFS=/ read -r _ _ flags <<< "${setting_of[$best]}"
    if [[ "$flags" == *[xp]* ]]; then
      trained_on=$work/all
      with_text "$trained_on" "$flags" "$data_corpus" "$data_extra" "$data_prose"
    fi
    shipped="$data/hmm-$best-all.safetensors"
    hmm_train "$shipped" "$trained_on" "${setting_of[$best]}"
  fi
  cp "$shipped" "$root/models/hmm-$pair.safetensors"
  # the chosen model's posterior threshold: silver and dev AER at each of THRESHOLDS, as a record
  # (data/en-XX/thresholds.tsv; models/pairs.json keeps one threshold unless silver's best carries over)
  echo -e "threshold\tsilver AER\tdev AER" > "$data/thresholds.tsv"
  for threshold in ${THRESHOLDS:-0.2 0.25 0.3 0.35 0.4 0.45 0.5}; do
    "$attn" align --method hmm --hmm "$data/${held}hmm-$best.safetensors" --posterior-threshold "$threshold" \
      -i "$work/train.in" > "$work/silver.out"
    "$attn" align --method hmm --hmm "$data/${held}hmm-$best.safetensors" --posterior-threshold "$threshold" \
      -i "$work/dev.in" > "$work/dev.out"
    echo -e "$threshold\t$(aer "$silver" "$work/silver.out")\t$(aer "$gold/dev.tsv" "$work/dev.out")" >> "$data/thresholds.tsv"
  done
  if [ ! "$data/ibm2-$pair.safetensors" -nt "$data_corpus.$xx" ]; then
    "$attn" ibm2-train -s "$data_corpus.en" -t "$data_corpus.$xx" -o "$data/ibm2-$pair.safetensors" 2>/dev/null
  fi
  "$attn" align --method hmm --hmm "$root/models/hmm-$pair.safetensors" -i "$work/dev.in" > "$work/hmm.out"
  "$attn" align --pair "$pair" -i "$work/dev.in" > "$work/default.out"
  "$attn" align --method ibm2 --ibm2 "$data/ibm2-$pair.safetensors" --symmetrize grow-diag-final-and \
    -i "$work/dev.in" > "$work/ibm2.out"
  echo -e "$pair\t$best\t$best_aer\t$(aer "$gold/dev.tsv" "$work/hmm.out")\t$(aer "$gold/dev.tsv" "$work/default.out")\t$(aer "$gold/dev.tsv" "$work/ibm2.out")\t$(stat -c %s "$root/models/hmm-$pair.safetensors")"
  rm -rf "$work"
done
