#!/usr/bin/env node
// Records what NCCL's own topology code answers on the corpus, for
// test/topo/oracle.test.ts. The oracle is a program built OUTSIDE this
// repository from NCCL's src/graph at one release (docs/topo-oracle.md says
// exactly what it runs and what is stubbed); this script only runs it:
//
//   node scripts/topo-oracle/record.mjs --oracle /path/to/oracle-2.30.7 --tag 2.30.7
//   node scripts/topo-oracle/record.mjs --oracle /path/to/oracle-2.30.7-knobs --tag 2.30.7 --sys
//
// For every transcription in test/topo/corpus/*.json and every case in
// CASES it writes the NCCL XML (corpus-xml.mjs) to a temporary file, runs
// `ORACLE FILE NNODES GRAPHDUMP` with the case's environment, and keeps the
// oracle's JSON and the graph dump NCCL_GRAPH_DUMP_FILE wrote, parsed, in
// test/topo/oracle/<tag>/<id>.json.

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { corpusXml } from './corpus-xml.mjs';

/** The cases recorded for every topology: nodes in the job, the environment NCCL reads, and whether a CollNet plugin is loaded. */
export const CASES = [
  { nodes: 1, env: {} },
  { nodes: 2, env: {} },
  { nodes: 2, env: { NCCL_CROSS_NIC: '0' } },
  { nodes: 2, env: { NCCL_CROSS_NIC: '1' } },
  { nodes: 2, env: { NCCL_PXN_DISABLE: '1' } },
  { nodes: 2, env: { NCCL_P2P_LEVEL: 'PHB' } },
  { nodes: 2, env: { NCCL_NET_GDR_LEVEL: 'PHB' } },
  // After the search (connect.cc ncclTopoPostset): the first 6 channels, then copied up to 10 (channels 6–9
  // take rings 0–3 but ask the graph for channels 6, 7, 0, 1's NICs).
  { nodes: 2, env: { NCCL_MAX_NCHANNELS: '6', NCCL_MIN_NCHANNELS: '10' } },
  // NCCL_MIN_CTAS above MAXCHANNELS (capped: 32 before 2.25.1, 64 after) over NCCL_MAX_NCHANNELS.
  { nodes: 1, env: { NCCL_MIN_CTAS: '40', NCCL_MAX_NCHANNELS: '3' } },
  // A CollNet plugin loaded (the oracle gives every NET the coll property) and enabled: CollNet chain and direct.
  { nodes: 2, collnetPlugin: true, env: { NCCL_COLLNET_ENABLE: '1' } },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const oracle = arg('--oracle');
const tag = arg('--tag');
if (!oracle || !tag || !/^\d+\.\d+\.\d+$/.test(tag)) {
  console.error('usage: record.mjs --oracle PATH --tag X.Y.Z [--only ID,ID…] [--first-driver] [--sys]');
  process.exit(2);
}
const only = arg('--only')?.split(',');
// The first driver (the only one built for 2.19.1 … 2.22.3: docs/topo-oracle.md) replays nothing of init.cc after
// the search: it records the first seven cases, without the channel and CollNet ones.
const firstDriver = process.argv.includes('--first-driver');
const knobsCase = (c) => !!c.collnetPlugin || Object.keys(c.env).some((k) => /NCHANNELS|CTAS/.test(k));
const cases = firstDriver ? CASES.filter((c) => !knobsCase(c)) : CASES;
const corpusDir = join(root, 'test/topo/corpus');
const outDir = join(root, 'test/topo/oracle', tag);
mkdirSync(outDir, { recursive: true });

/** <graphs><graph id …><channel><net dev/><gpu dev rank/>…</channel></graph></graphs> → plain data. */
export function parseGraphDump(text) {
  const graphs = [];
  for (const g of text.matchAll(/<graph ([^>]*?)(\/?)>([\s\S]*?)(?=<graph |<\/graphs>)/g)) {
    const a = Object.fromEntries([...g[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const channels = [...(g[3] ?? '').matchAll(/<channel>([\s\S]*?)<\/channel>/g)].map((c) => ({
      net: [...c[1].matchAll(/<net dev="([^"]*)"/g)].map((m) => Number(m[1])),
      // Releases before 2.28 write no rank: the GPU's NVML device number only.
      gpus: [...c[1].matchAll(/<gpu dev="([^"]*)"(?: rank="([^"]*)")?/g)].map((m) => (m[2] === undefined ? { dev: Number(m[1]) } : { dev: Number(m[1]), rank: Number(m[2]) })),
    }));
    graphs.push({ id: Number(a.id), pattern: Number(a.pattern), crossnic: Number(a.crossnic), nchannels: Number(a.nchannels), speedintra: Number(a.speedintra), speedinter: Number(a.speedinter), latencyinter: Number(a.latencyinter), typeintra: a.typeintra, typeinter: a.typeinter, samechannels: Number(a.samechannels), channels });
  }
  return graphs;
}

/** Every case on one XML file: the oracle's answers. */
function answersOn(id, xmlPath) {
    return cases.map((c) => {
      const dump = join(tmp, `${id}-graph.xml`);
      rmSync(dump, { force: true });
      const env = { PATH: process.env.PATH, ...c.env, ...(c.collnetPlugin ? { ORACLE_COLLNET: '1' } : {}) };
      const r = spawnSync(oracle, [xmlPath, String(c.nodes), dump], { env, encoding: 'utf8', timeout: 120_000 });
      // NCCL's own code may crash the process (a stack overflow in findLocalCpu before 2.26.2): that is the answer.
      const crashed = r.signal === 'SIGSEGV' || r.signal === 'SIGBUS';
      if (r.status !== 0 && !crashed) throw new Error(`${id} ${JSON.stringify(c)}: oracle exit ${r.status} ${r.signal ?? ''}: ${r.stderr}`);
      const out = crashed ? { error: 'crash', signal: r.signal } : JSON.parse(r.stdout);
      let graphDump = null;
      try {
        graphDump = parseGraphDump(readFileSync(dump, 'utf8'));
      } catch {
        graphDump = null;
      }
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('WARN ')).map((l) => l.slice(5));
      return { case: c, out, graphDump, warnings };
    });
}

/**
 * --sys: the /sys fixtures with GPUs (the topo- nodes of test/fixtures/), each as the XML
 * ncclx builds from it (`ncclx topo --root FIXTURE --xml`, dist/ built), kept
 * with the answers in test/topo/oracle-sys/<tag>/<fixture>.json, apart from
 * the published corpus.
 */
function recordSys() {
  const fixtures = join(root, 'test/fixtures');
  const dir = join(root, 'test/topo/oracle-sys', tag);
  mkdirSync(dir, { recursive: true });
  for (const id of readdirSync(fixtures).filter((x) => /^topo-[\w-]+$/.test(x)).sort()) {
    if (only && !only.includes(id)) continue;
    const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'topo', '--root', join(fixtures, id), '--xml'], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`${id}: ncclx topo --xml exit ${r.status}: ${r.stderr}`);
    if (!r.stdout.includes('<gpu ')) continue;
    const xmlPath = join(tmp, `${id}.xml`);
    writeFileSync(xmlPath, r.stdout);
    const answers = answersOn(id, xmlPath);
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ tag, id, fixture: `test/fixtures/${id}`, xml: r.stdout, answers }) + '\n');
    console.log(`${tag} ${id} (from /sys): ${answers.length} cases`);
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'ncclx-oracle-'));
try {
  if (process.argv.includes('--sys')) recordSys();
  else for (const f of readdirSync(corpusDir).filter((x) => x.endsWith('.json')).sort()) {
    const t = JSON.parse(readFileSync(join(corpusDir, f), 'utf8'));
    if (only && !only.includes(t.id)) continue;
    const xmlPath = join(tmp, `${t.id}.xml`);
    writeFileSync(xmlPath, corpusXml(t));
    const answers = answersOn(t.id, xmlPath);
    writeFileSync(join(outDir, `${t.id}.json`), JSON.stringify({ tag, id: t.id, corpus: `test/topo/corpus/${f}`, answers }) + '\n');
    console.log(`${tag} ${t.id}: ${answers.length} cases`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
