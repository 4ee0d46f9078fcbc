#!/usr/bin/env bash
# The learned master's size sweep on a lent GPU machine, in one call of the device tool's `run`.
#
#   1. builds the decision dataset (bench/learn_dataset.py) from the games in $GAMES;
#   2. trains each size in $SIZES side by side on the one GPU (bench/learn_train.py --device cuda);
#   3. exports each to $OUT/<name>.npz with its provenance and the numpy-vs-torch check;
#   4. with the time left before $DEADLINE seconds, plays each export against two Experts
#      (the arena, East-South, fresh walls, six seat orders) until time runs out.
#
# Everything goes to $OUT/run.log as it happens, so a run cut short still reports what it did.
# The games are Tenhou's and stay out of the repository: copy them into an ignored folder that
# the call carries (the machine reaches nothing outside):
#
#   echo /.games/ >> .git/info/exclude; mkdir -p .games
#   cp ../shared/testdata/phoenix3p_mjlog/*.xml.gz .games/
#   run(command="bash bench/learn_gpu.sh", carry=[".games"], timeout_s=560)
#
# SIZES holds channels x blocks x epochs per candidate; the recipe is otherwise
# bench/learn_train.py's (batch 512, AdamW 2e-3, cosine, seed 1, the six augmentations).
set -u
OUT=${OUT:-/tmp/learn-gpu}
GAMES=${GAMES:-.games}
SIZES=${SIZES:-128x6x6 192x8x6 256x8x6}
DEADLINE=${DEADLINE:-520}
TRAIN_MINUTES=${TRAIN_MINUTES:-5}
ARENA_MATCHES=${ARENA_MATCHES:-1200}
PY=${PY:-python3}
DEVICE=${DEVICE:-cuda}
DATA=${DATA:-/tmp/sanma-learn}
CKPT=${CKPT:-/tmp/sanma-ckpt}
WORKERS=$(nproc)
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"
LOG=$OUT/run.log
start=$SECONDS
say() { echo "[$((SECONDS - start))s] $*" | tee -a "$LOG"; }
prefixed() { sed -u "s/^/[$1] /" >>"$LOG"; }

say "machine: $WORKERS cores; $("$PY" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")' 2>&1)"
"$PY" bench/learn_dataset.py --games "$GAMES" --out "$DATA" --workers "$WORKERS" 2>&1 | prefixed dataset
say "dataset built"

names=()
for size in $SIZES; do
    IFS=x read -r channels blocks epochs <<<"$size"
    name=c${channels}b${blocks}e${epochs}
    names+=("$name")
    "$PY" bench/learn_train.py --data "$DATA" --ckpt "$CKPT/$name" --device "$DEVICE" --threads 3 \
        --channels "$channels" --blocks "$blocks" --epochs "$epochs" \
        --stage-minutes "$TRAIN_MINUTES" --save-every 2000 2>&1 | prefixed "$name" &
done
wait
say "training done"

for name in "${names[@]}"; do
    "$PY" bench/learn_train.py --data "$DATA" --ckpt "$CKPT/$name" --export "$OUT/$name.npz" \
        --version "$name" 2>&1 | grep -v '^ ' | prefixed "export $name"
done
say "exported: $(cd "$OUT" && ls ./*.npz 2>/dev/null | tr '\n' ' ')"

# the most accurate on the validation day first, in case time runs out
ranked=$("$PY" - "$OUT" "${names[@]}" <<'EOF'
import json, sys
import numpy as np
out, names = sys.argv[1], sys.argv[2:]
def top1(name):
    try:
        with np.load(f"{out}/{name}.npz") as data:
            return (json.loads(str(data["meta"]))["validation"] or {}).get("top1", 0.0)
    except OSError:
        return -1.0
print(" ".join(sorted(names, key=top1, reverse=True)))
EOF
)
say "arena order: $ranked"
for name in $ranked; do
    left=$((DEADLINE - (SECONDS - start)))
    if ((left < 60)); then
        say "no time left for the arena of $name"
        continue
    fi
    [ -f "$OUT/$name.npz" ] || continue
    say "arena $name (at most ${left}s)"
    LEARN_WEIGHTS=$OUT/$name.npz timeout "$left" "$PY" -m sanma arena \
        --players py:bench.learn_candidate:policy,expert,expert \
        --matches "$ARENA_MATCHES" --rotations 6 --length east-south --seed 12201 \
        --workers "$WORKERS" --no-progress 2>&1 | prefixed "arena $name"
done
say "done"
