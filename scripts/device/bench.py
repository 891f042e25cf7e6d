#!/usr/bin/env python3
# ps on a node with >= 2,000 processes: median of 11 runs of `ncclx ps --json` beside `ncclx --version` and /bin/true.
import json, os, statistics, subprocess, sys, time
N = sys.argv[1]; want = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
count = lambda: sum(1 for n in os.listdir('/proc') if n.isdigit())
kids = []
while count() < want:
    for _ in range(min(200, want - count())): kids.append(subprocess.Popen(['sleep', '600']))
    time.sleep(0.05)
def med(cmd, runs=11):
    w = []; c0 = os.times()
    for _ in range(runs):
        t = time.perf_counter(); r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE); w.append((time.perf_counter() - t) * 1000)
    c1 = os.times(); return statistics.median(w), ((c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)) * 1000 / runs, r
procs = count()
for name, cmd in [('/bin/true', ['/bin/true']), ('ncclx --version', [N, '--version']), ('ncclx ps --json', [N, 'ps', '--json'])]:
    m, c, r = med(cmd)
    extra = ''
    if 'ps' in cmd: extra = ' (%d with NCCL mapped)' % len(json.loads(r.stdout)['processes'])
    print('| %s | %d processes%s | median wall %.1f ms | mean CPU %.0f ms |' % (name, procs, extra, m, c), flush=True)
for k in kids: k.kill()
for k in kids: k.wait()
