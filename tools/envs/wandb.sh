#!/usr/bin/env bash
# wandb (Weights & Biases, run offline in tests) in .venv-ecosystem, next to our installed wheel and
# torch, for tests/ecosystem/test_wandb.py: wandb's TensorBoard sync must see our writers' logdirs.
# Idempotent: a stamp of the pinned requirement (and of the ecosystem venv's own stamp, which
# changes whenever that venv is rebuilt) skips the install when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

ECO_VENV=.venv-ecosystem
WANDB_DEPS="wandb==0.31.*"

[ -x "$ECO_VENV/bin/python" ] || { echo "envs/wandb: $ECO_VENV is missing (tools/test_envs.sh makes it)" >&2; exit 1; }
STAMP="$WANDB_DEPS $(cat "$ECO_VENV/.deps-stamp" 2>/dev/null)"
if [ -f "$ECO_VENV/.wandb-stamp" ] && [ "$(cat "$ECO_VENV/.wandb-stamp")" = "$STAMP" ] \
    && "$ECO_VENV/bin/python" -c "import wandb" 2>/dev/null; then
  exit 0
fi
echo "envs/wandb: installing $WANDB_DEPS into $ECO_VENV"
# keep torch (the CPU build) and our tensorboard wheel exactly as they are
ours=$("$ECO_VENV/bin/python" -c 'from importlib.metadata import version; print(version("tensorboard"))')
constraints=$(mktemp)
trap 'rm -f "$constraints"' EXIT
cat "$ECO_VENV/constraints.txt" > "$constraints"
echo "tensorboard==$ours" >> "$constraints"
bash tools/pip_install.sh "$ECO_VENV" -c "$constraints" $WANDB_DEPS
after=$("$ECO_VENV/bin/python" -c 'from importlib.metadata import version; print(version("tensorboard"))')
[ "$after" = "$ours" ] || { echo "envs/wandb: pip replaced our tensorboard ($ours) with $after" >&2; exit 1; }
echo "$STAMP" > "$ECO_VENV/.wandb-stamp"
