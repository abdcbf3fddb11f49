#!/usr/bin/env bash
# Trains the shipped captioner (models/captioner.safetensors, its model card's "Training") from
# nothing, in the stages it was made in, each resumable (rerun the script: a finished stage is
# skipped, a stopped one resumes from its checkpoint). About 2 hours 30 minutes on 2 CPU cores.
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
[ -f "$runs/2.safetensors" ] || export_to --runs "$runs/2" --out "$runs/2.safetensors" --based-on "$runs/1.safetensors"

# 3. the third release: from it, the decoder started from the mean and the maximum over the cells
#    (its maximum's half at zero, so training begins from the second release's behaviour), 6,000 steps
train --phase soft --steps 6000 --init "$runs/2.safetensors" --start mean+max --kind-weights 0.1,0.4,0.5 \
  --rate 1e-3 --eval-every 1000 --runs "$runs/3"
[ -f "$runs/3/hard.pt" ] || train --phase hard --steps 1000 --runs "$runs/3"
export_to --runs "$runs/3" --out "$out" --based-on "$runs/2.safetensors"
