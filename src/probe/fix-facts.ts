// What the planner needs to know about the node beyond the snapshot: tools on
// PATH, the schedulers the kernel really has, link speeds, and the current
// content of the files a fix merges into.

import { spawnSync } from 'node:child_process';
import { release } from 'node:os';
import { Root } from './root.js';
import type { PlanFacts } from '../model/fix/types.js';
import { which } from './runner.js';

export interface FactSource {
  /** Read this node (true) or a fixture tree / snapshot (false: nothing is run). */
  live: boolean;
  /** Root directory files are read under (a fixture), '/' for the node. */
  root: string;
}

/** From files: /sys/module (built-ins with parameters, loaded modules) and /lib/modules. */
function schedulerFromFiles(root: Root, name: string): boolean | null {
  if (root.exists(`/sys/module/sch_${name}`)) return true;
  const mods = `/lib/modules/${release()}`;
  if (!root.exists(mods)) return null;
  const builtin = root.readTrim(`${mods}/modules.builtin`) ?? '';
  const dep = root.readTrim(`${mods}/modules.dep`) ?? '';
  return builtin.includes(`/sch_${name}.ko`) || dep.includes(`/sch_${name}.ko`);
}

/**
 * Ask the kernel itself: add each root qdisc to the loopback of a throwaway
 * network namespace (`unshare --net`: it exists only for that one command,
 * and loading the module is the kernel's own doing). Nothing on the node's
 * links is touched.
 */
function schedulerProbe(): { prio: boolean; htb: boolean } | null {
  const has = (kind: string) => {
    const r = spawnSync('unshare', ['--net', 'tc', 'qdisc', 'replace', 'dev', 'lo', 'root', 'handle', '1:', kind], { encoding: 'utf8', timeout: 10_000 });
    if (r.error) return null;
    return r.status === 0 ? true : /unknown/i.test(r.stderr) ? false : null;
  };
  const prio = has('prio');
  const htb = has('htb');
  return prio === null || htb === null ? null : { prio, htb };
}

export function gatherFacts(src: FactSource): PlanFacts {
  const root = new Root(src.root);
  let sched: ReturnType<PlanFacts['schedulers']> | null = null;
  return {
    tools: src.live
      ? {
          ip: which('ip') !== null,
          tc: which('tc') !== null,
          nft: which('nft') !== null, iptables: which('iptables') !== null && which('iptables-restore') !== null, ip6tables: which('ip6tables') !== null && which('ip6tables-restore') !== null }
      : { ip: true, tc: true, nft: true, iptables: true, ip6tables: true },
    schedulers() {
      if (sched) return sched;
      const probed = src.live && process.getuid?.() === 0 ? schedulerProbe() : null;
      if (probed) return (sched = { ...probed, how: 'tried on the loopback of a throwaway network namespace' });
      return (sched = { prio: schedulerFromFiles(root, 'prio'), htb: schedulerFromFiles(root, 'htb'), how: '/sys/module and /lib/modules' });
    },
    linkSpeedMbit(dev) {
      const t = root.readTrim(`/sys/class/net/${dev}/speed`);
      const n = t === null ? NaN : Number.parseInt(t, 10);
      return Number.isFinite(n) && n > 0 ? n : null;
    },
    readFile(path) {
      const r = root.read(path);
      return r.ok ? r.value : null;
    },
  };
}
