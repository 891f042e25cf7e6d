#!/bin/bash
# The GPU-node check behind test/device/ (test/device/h200-vm/README.md): run
# from the repository root on a GPU node with PyTorch (python3 on PATH), as root,
#
#   NCCLX=release/ncclx-linux-x64 OUT=/tmp/ncclx-device bash scripts/device/check.sh
#
# It reads the node with the ncclx executable, starts four real one-rank
# PyTorch/NCCL jobs (scripts/device/job.py, stuck.py) — on the host, in its
# own network and mount namespace, with NCCL_COMM_ID on no local subnet, and
# with NCCL_COMM_ID at an address nobody answers — takes `ncclx snapshot --pid`
# of each, and times `ncclx ps --json` on 2,000 processes (bench.py). What it
# prints goes to $OUT/log.txt; the files test/device/ keeps are in $OUT/r.tar.gz.
set -u
N=${NCCLX:-release/ncclx-linux-x64}; OUT=${OUT:-/tmp/ncclx-device}; R=/tmp/ncclx-device-r; D=$PWD/scripts/device
mkdir -p "$OUT" "$R"; rm -f /tmp/j?.ready
trap 'cp /tmp/ncclx-device.log "$R/log.txt" 2>/dev/null; tar czf "$OUT/r.tar.gz" -C "$(dirname $R)" "$(basename $R)"' EXIT
exec > >(tee /tmp/ncclx-device.log) 2>&1
s() { echo; echo "### $*"; }
t0=$(date +%s)
s node; uname -a; nproc; id; which python3 ip tc nft iptables unshare; nvidia-smi -L; ls /sys/class/net /sys/class/infiniband 2>&1
python3 -c "import torch;print('torch',torch.__version__,'nccl',torch.cuda.nccl.version())"
s ncclx; "$N" --version; timeout 60 "$N" explain -v; timeout 60 env -i "$N" explain; timeout 90 "$N" doctor --no-tui -v
timeout 60 "$N" ib; timeout 60 "$N" topo -v; timeout 60 "$N" topo --xml > $R/ncclx-topo.xml; timeout 60 "$N" env --debug
timeout 60 "$N" snapshot -o $R/snapshot.json
nvidia-smi topo -m; nvidia-smi --query-gpu=compute_cap,pci.bus_id --format=csv
s jobs; cd /tmp
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL NCCL_TOPO_DUMP_FILE=$R/nccl-topo.xml JOB_PORT=29500 python3 $D/job.py /tmp/j1.ready 300 > $R/job1.log 2>&1 & J1=$!
unshare --net --mount --fork env NCCL_DEBUG=INFO JOB_PORT=29501 python3 $D/job.py /tmp/j3.ready 300 --lo-up > $R/job3.log 2>&1 & U3=$!
NCCL_DEBUG=INFO NCCL_COMM_ID=10.255.255.1:29999 python3 $D/stuck.py /tmp/j2.ready > $R/job2.log 2>&1 & J2=$!
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET,ENV NCCL_COMM_ID=${SYN_SENT_ROOT:-192.0.2.77:29999} python3 $D/stuck.py /tmp/j4.ready > $R/job4.log 2>&1 & J4=$!
for i in $(seq 90); do [ -e /tmp/j1.ready ] && [ -e /tmp/j3.ready ] && [ -e /tmp/j2.ready ] && [ -e /tmp/j4.ready ] && break; kill -0 $J1 $J2 $J4 $U3 2>/dev/null || { echo a job exited; break; }; sleep 1; done; sleep 2
cd - >/dev/null; J3=$(pgrep -P $U3); echo "waited ${i}s J1=$J1 J2=$J2 J3=$J3 J4=$J4"
s ps; timeout 60 "$N" ps -v; timeout 60 "$N" ps --json > $R/ps.json
for P in $J1 $J2 $J3 $J4; do timeout 60 "$N" snapshot --pid $P -o $R/snapshot-$P.json; done
for P in $J1 $J2 $J3 $J4; do s pid $P; timeout 60 "$N" explain --pid $P; timeout 90 "$N" doctor --pid $P --no-tui; timeout 60 "$N" env --pid $P; timeout 60 "$N" topo --pid $P; done
s log; for L in 1 2 3 4; do echo "-- job$L"; timeout 60 "$N" log --here $R/job$L.log | tail -12; done
s bench; timeout 150 python3 $D/bench.py "$N" 2000
kill $J1 $J2 $J4 $U3 2>/dev/null
s done $(( $(date +%s) - t0 ))s
