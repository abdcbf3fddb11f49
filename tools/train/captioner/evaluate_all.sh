#!/usr/bin/env bash
# The captioner's figures (models/MODEL_CARD.md): scenes with held-out object pairs (seed 2, never
# the training seed), scenes of seen pairs, and the held-out scenes redrawn by Chromium's canvas at
# 96 and 224 pixels; soft and hard attention; the nearest-neighbour baseline on the held-out set.
#   tools/train/captioner/evaluate_all.sh [MODEL]     (from the repository root; ~5 minutes)
set -euo pipefail
cd "$(dirname "$0")/../../.."
model=${1:-models/captioner.safetensors}
py=/usr/bin/python3
out=data/scenes/figures
mkdir -p "$out"
[ -f data/scenes/held-out/scenes.json ] || $py -m tools.data.scenes --split held-out --count 1000 --seed 2 --out data/scenes/held-out
[ -f data/scenes/seen/scenes.json ] || $py -m tools.data.scenes --split seen --count 500 --seed 2 --out data/scenes/seen
[ -f data/scenes/held-out-chromium/scenes.json ] || node tools/data/scenes/chromium.mjs data/scenes/held-out data/scenes/held-out-chromium
[ -f data/scenes/held-out-chromium-224/scenes.json ] || node tools/data/scenes/chromium.mjs data/scenes/held-out data/scenes/held-out-chromium-224 224
$py -m tools.train.captioner.evaluate "$model" data/scenes/held-out --baseline 20000 > "$out/held-out-soft.json"
$py -m tools.train.captioner.evaluate "$model" data/scenes/held-out --hard --seed 1 > "$out/held-out-hard.json"
for set in seen held-out-chromium held-out-chromium-224; do
  $py -m tools.train.captioner.evaluate "$model" "data/scenes/$set" > "$out/$set-soft.json"
  $py -m tools.train.captioner.evaluate "$model" "data/scenes/$set" --hard --seed 1 > "$out/$set-hard.json"
done
$py - "$out" <<'PY'
import json, sys, pathlib
print("| scenes | attention | exact | recall | precision | BLEU-4 | pointing (art box) | pointing (square) | cell centre in art box |")
print("|---|---|---|---|---|---|---|---|---|")
for name in ("held-out", "seen", "held-out-chromium", "held-out-chromium-224"):
    for kind in ("soft", "hard"):
        r = json.loads((pathlib.Path(sys.argv[1]) / f"{name}-{kind}.json").read_text())
        print(f"| {name} ({r['scenes']}) | {kind} | {r['exact']:.3f} | {r['recall']:.3f} | {r['precision']:.3f} | "
              f"{r['bleu4']:.3f} | {r['pointing']:.3f} | {r['pointing_square']:.3f} | {r['pointing_centre']:.3f} |")
        if "nearest_neighbour" in r:
            b = r["nearest_neighbour"]
            print(f"| {name} ({r['scenes']}) | nearest neighbour of {b['training_scenes']} | {b['exact']:.3f} | "
                  f"{b['recall']:.3f} | {b['precision']:.3f} | {b['bleu4']:.3f} | | | |")
PY
