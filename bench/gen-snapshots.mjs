#!/usr/bin/env node
// Write N realistic node snapshots for `ncclx compare`: copies of a fixture
// node (read exactly as `ncclx snapshot --root` reads it) with their own
// hostnames, MACs, addresses, GIDs and routes, and a fraction of faulty
// nodes (src/compare/generate.ts lists the faults).
//
//   node bench/gen-snapshots.mjs --nodes 1000 --faulty 0.01 --out /tmp/cluster
//   node bench/gen-snapshots.mjs --nodes 4 --mesh --out /tmp/mesh     (direct-connect mesh)
//
// Needs `npm run build` (it uses dist/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');

export async function templateInfo(fixture) {
  const { probeNode } = await import(join(dist, 'probe', 'index.js'));
  const { prepareTemplate } = await import(join(dist, 'compare', 'generate.js'));
  // The fixture's recorded commands stand in for the node's; its environment is not this machine's.
  const snap = await probeNode({ root: fixture, env: {} });
  return prepareTemplate(snap);
}

/** Write the cluster; returns the file names in node order and the fault plan. */
export async function generate({ nodes, faulty = 0, seed = 1, out, fixture, mesh = false }) {
  const gen = await import(join(dist, 'compare', 'generate.js'));
  const info = await templateInfo(fixture ?? join(here, '..', 'test', 'fixtures', mesh ? 'mesh-direct' : 'roce-healthy'));
  mkdirSync(out, { recursive: true });
  const plan = mesh ? new Array(nodes).fill(null) : gen.faultPlan({ nodes, faultFraction: faulty, seed });
  const files = [];
  for (let i = 0; i < nodes; i++) {
    const snap = mesh ? gen.meshNode(info, i, nodes) : gen.clusterNode(info, i, plan[i]);
    // Pretty-printed exactly as `ncclx snapshot -o` writes it.
    const file = join(out, `${snap.host.hostname}.json`);
    writeFileSync(file, JSON.stringify(snap, null, 2) + '\n');
    files.push(file);
  }
  return { files, plan };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '100' },
      faulty: { type: 'string', default: '0' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      fixture: { type: 'string' },
      mesh: { type: 'boolean', default: false },
    },
  });
  if (!values.out) {
    console.error('usage: gen-snapshots.mjs --nodes N [--faulty 0.01] [--seed 1] [--mesh] [--fixture DIR] --out DIR');
    process.exit(2);
  }
  const t0 = Date.now();
  const { plan } = await generate({ nodes: Number(values.nodes), faulty: Number(values.faulty), seed: Number(values.seed), out: values.out, fixture: values.fixture, mesh: values.mesh });
  const faults = plan.filter(Boolean).length;
  console.log(`${plan.length} snapshots (${faults} faulty) in ${values.out} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
