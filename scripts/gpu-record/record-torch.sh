#!/usr/bin/env bash
# Run ON THE GPU MACHINE from the project root: bash scripts/gpu-record/record-torch.sh
# Real PyTorch profiler (kineto) traces for the importers and the analysis, and nsys exports of
# NCCL collectives (see fixtures/kineto/README.md for what each program does).
# Every step runs under its own time limit, and a step whose limit would carry the whole past
# RECORD_BUDGET_S (default 400 s) is skipped and said so; RECORD_ONLY="gloo nccl2" runs only
# the steps it names. Each trace is scrubbed
# (scrub-kineto.py; nsys: .gpu/scrub-nsys.py then scrub-extra.py), its counts are taken from the
# raw and the scrubbed file and must agree, and check-scrubbed.py must pass it: only files that
# pass are packed, gzip -9 each, into $OUT/torch.tar.xz with the counts and the logs.
set -uo pipefail
source .gpu/on-device.sh
here=$(cd "$(dirname "$0")" && pwd)
root=$(pwd)
work=/tmp/rec-torch && rm -rf "$work" && mkdir -p "$work/raw" "$work/keep" "$work/logs"
cp "$here"/*.py "$work"/ && cd "$work" || exit 1
budget=${RECORD_BUDGET_S:-400}
ok=" "
note() { echo "== [${SECONDS}s] $*"; }
step() { # step NAME LIMIT_S CMD...: CMD under a time limit, unless that could overrun the budget
  local name=$1 limit=$2 rc
  shift 2
  if [ -n "${RECORD_ONLY:-}" ] && [[ " $RECORD_ONLY " != *" $name "* ]]; then
    return 1
  fi
  if ((SECONDS + limit > budget)); then
    note "skip $name: ${SECONDS}s used, ${limit}s more could pass ${budget}s"
    return 1
  fi
  note "$name (limit ${limit}s) epoch $(date +%s.%N) uptime $(cut -d' ' -f1 /proc/uptime)"
  timeout -k 5 "$limit" "$@" > "logs/$name.log" 2>&1
  rc=$?
  tail -5 "logs/$name.log"
  note "$name rc=$rc"
  [ $rc -eq 0 ] && ok="$ok$name "
  return $rc
}
nsys_step() { # nsys_step NAME LIMIT_S CMD...: CMD under nsys (as nsys_profile does), then export
  local name=$1 limit=$2
  shift 2
  step "$name" "$limit" env -i HOME=/tmp PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" \
    "$NSYS" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite true \
    -o "raw/$name" "$@" || return 1
  "$NSYS" export --type json --force-overwrite true -o "raw/$name.json" "raw/$name.nsys-rep" > /dev/null 2>&1 &&
    "$NSYS" export --type sqlite --force-overwrite true -o "raw/$name.sqlite" "raw/$name.nsys-rep" > /dev/null 2>&1
}
has() { [[ "$ok" == *" $1 "* ]]; }

{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton, torchvision as tv; print("torch", torch.__version__, "cuda", torch.version.cuda,
"nccl", ".".join(map(str, torch.cuda.nccl.version())), "triton", triton.__version__, "torchvision", tv.__version__)'
  "$NSYS" --version
} 2>&1 | tee logs/versions.txt

step basic 60 python3 pt-basic.py raw/basic.json
step dataloader 100 python3 pt-dataloader.py raw/dataloader.json
step gloo 100 python3 pt-gloo.py raw
step nccl1 60 python3 pt-nccl.py --world 1 raw
step nccl2 120 python3 pt-nccl.py --world 2 raw
step triton 60 python3 pt-triton.py raw/triton.json
has nccl2 && nsys_step nsys-nccl2 150 python3 pt-nccl.py --world 2 --plain raw
step compile 100 python3 pt-compile.py raw/compile.json
step full 100 python3 pt-full.py raw/full.json
nsys_step nsys-jax 120 python3 jax-train.py
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then # a rank per GPU, where the machine has two
  step nccl2gpu 120 python3 pt-nccl.py --world 2 --gpus raw
  has nccl2gpu && nsys_step nsys-nccl2gpu 150 python3 pt-nccl.py --world 2 --gpus --plain raw
  step ddp2gpu 120 python3 pt-ddp.py raw
  has ddp2gpu && nsys_step nsys-ddp2gpu 150 python3 pt-ddp.py --plain raw
  step fsdp2gpu 120 python3 pt-ddp.py --fsdp raw
  has fsdp2gpu && nsys_step nsys-fsdp2gpu 150 python3 pt-ddp.py --fsdp --plain raw
  # A 2-stage pipeline (GPipe over NCCL send/recv) under torchrun, balanced and with stage 1
  # holding 6 layers to stage 0's 4.
  pp=(python3 -m torch.distributed.run --standalone --nproc_per_node 2 pt-pipeline.py)
  step pp2gpu 120 "${pp[@]}" raw
  has pp2gpu && nsys_step nsys-pp2gpu 150 "${pp[@]}" --plain raw
  step pp2gpu-4-6 120 "${pp[@]}" --layers 4,6 raw
fi
nsys_step nsys-nccl1 90 python3 pt-nccl.py --world 1 --plain raw

note "scrub, count, check"
for f in raw/*.json; do
  n=$(basename "$f" .json)
  case $n in
    nsys-*)
      [ -f "raw/$n.sqlite" ] || continue
      cp "raw/$n.json" "keep/${n#nsys-}.json" && cp "raw/$n.sqlite" "keep/${n#nsys-}.sqlite"
      python3 fixture-counts.py "raw/$n.sqlite" | grep -v '"file"' > "logs/$n.raw.counts"
      (cd keep && nsys_scrub "${n#nsys-}.json" "${n#nsys-}.sqlite" && python3 ../scrub-extra.py "${n#nsys-}.json" "${n#nsys-}.sqlite")
      python3 fixture-counts.py "keep/${n#nsys-}.sqlite" | grep -v '"file"' > "logs/$n.counts"
      ;;
    *)
      python3 scrub-kineto.py "$f" "keep/$n.pt.trace.json" || continue
      python3 fixture-counts.py "$f" | grep -v '"file"' > "logs/$n.raw.counts"
      python3 fixture-counts.py "keep/$n.pt.trace.json" | grep -v '"file"' > "logs/$n.counts"
      ;;
  esac
  cmp -s "logs/$n.raw.counts" "logs/$n.counts" || note "COUNTS DIFFER after scrubbing $n"
done
mkdir -p held
for f in keep/*; do
  python3 check-scrubbed.py --forbid "$root" --forbid "$work" "$f" >> logs/check.txt 2>&1 || {
    note "NOT CLEAN: $f (held back)"
    mv "$f" held/
  }
done
cat logs/check.txt
gzip -9 keep/*
python3 fixture-counts.py keep/*.pt.trace.json.gz keep/*.sqlite.gz > counts.json 2> logs/counts.err
ls -la keep held
tar -cJf "$OUT/torch.tar.xz" keep logs counts.json
note "done: ok =$ok"
ls -la "$OUT"
