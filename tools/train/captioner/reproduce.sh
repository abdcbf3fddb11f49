#!/usr/bin/env bash
# Trains the shipped captioner (models/captioner.safetensors, its model card's "Training") from
# nothing, in the stages it was made in, each resumable (rerun the script: a finished stage is
# skipped, a stopped one resumes from its checkpoint). About 1 hour 45 minutes on 2 CPU cores.
# (train.py --concepts, a training-only head naming the scene's kinds, was measured as a third
# stage: captions better, attention less precise; not in the release, CHANGELOG.md says by how much.)
#   tools/train/captioner/reproduce.sh [OUT=models/captioner.safetensors]   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-models/captioner.safetensors}
py=/usr/bin/python3
train() { OMP_WAIT_POLICY=PASSIVE $py -m tools.train.captioner.train "$@"; }
export_to() { $py -m tools.train.captioner.export "$@"; }
steps_of() { [ -f "$1" ] && $py -c 'import sys, torch; print(torch.load(sys.argv[1])["state"]["step"])' "$1" || echo 0; }
runs=runs/captioner-stages
mkdir -p "$runs"

# 1. the first release: soft attention from scratch, 6,000 steps, then the hard decoder
train --phase soft --steps 6000 --runs "$runs/1"
[ -f "$runs/1/hard.pt" ] || train --phase hard --steps 1000 --runs "$runs/1"
[ -f "$runs/1.safetensors" ] || export_to --runs "$runs/1" --out "$runs/1.safetensors"

# 2. from it, 4,000 steps with more scenes of three kinds, then 4,000 more with more still
[ "$(steps_of "$runs/2/soft.pt")" -ge 4000 ] || train --phase soft --steps 4000 --init "$runs/1.safetensors" \
  --kind-weights 0.15,0.45,0.4 --rate 1e-3 --eval-every 500 --runs "$runs/2"
train --phase soft --steps 8000 --kind-weights 0.1,0.4,0.5 --rate 1e-3 --eval-every 1000 --runs "$runs/2"
[ -f "$runs/2/hard.pt" ] || train --phase hard --steps 1000 --runs "$runs/2"
export_to --runs "$runs/2" --out "$out" --based-on "$runs/1.safetensors"
