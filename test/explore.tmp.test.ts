import { it } from 'vitest';
import { probeNode } from '../src/probe/index.js';
import { environments } from '../test/advice/envs.js';
import { trial } from '../test/advice/triples.js';
it('explore', async () => {
  const fxs = (process.env.FX ?? 'efa,ib8-storage,mesh-direct,roce-bond,roce-healthy,roce-one-subnet,roce-rail-subnets,sandbox').split(',');
  const N = Number(process.env.N ?? 60);
  let total = 0; const problems: string[] = []; const withheld = new Map<string, number>(); const examples: string[] = [];
  for (const fx of fxs) {
    const base = await probeNode({ root: `/work/main/test/fixtures/${fx}`, kernel: true, rdma: true, env: {} });
    for (const t of environments(base, N, 7)) {
      const o = trial(base, t);
      total += o.triples;
      problems.push(...o.problems.map((p) => `${fx}: ${p}`));
      for (const w of o.withheld) { if (!examples.some((e) => e.startsWith(w.checkId))) examples.push(`${w.checkId} ${fx} ${t.version} ${JSON.stringify(t.env)} => ${JSON.stringify(w.env)}: ${w.why}`); }
      for (const w of o.withheld) withheld.set(`${w.checkId} ${Object.keys(w.env).join(',')}`, (withheld.get(`${w.checkId} ${Object.keys(w.env).join(',')}`) ?? 0) + 1);
    }
  }
  console.log('triples', total, 'problems', problems.length);
  const byKind = new Map<string, string[]>();
  for (const p of problems) { const k = p.replace(/\{.*?\}/g, '{}').replace(/"[^"]*"/g, '"…"').slice(0, 140); byKind.set(k, [...(byKind.get(k) ?? []), p]); }
  for (const [, v] of [...byKind.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, 40)) console.log(v.length, '×', v[0]!.slice(0, 600));
  console.log('withheld', JSON.stringify([...withheld.entries()].sort((a,b)=>b[1]-a[1]).slice(0, 30)));
  for (const e of examples.slice(0, 30)) console.log('EX', e.slice(0, 500));
}, 600000);
