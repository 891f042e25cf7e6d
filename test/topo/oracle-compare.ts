// Holds ncclx's topology engine to what NCCL's own code answered on the
// published topologies (test/topo/oracle/<tag>/*.json, recorded by
// scripts/topo-oracle/record.mjs; docs/topo-oracle.md): field by field, so
// a disagreement says which field and where.

import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error plain JavaScript module shared with the record script
import { corpusXml } from '../../scripts/topo-oracle/corpus-xml.mjs';
import { parseXml } from '../../src/model/topo/xml-read.js';
import { runEngine, type EngineResult } from '../../src/model/topo/engine-run.js';
import { NcclInitError } from '../../src/model/topo/engine.js';
import { topoProfileFor } from '../../src/model/nccl/versions.js';
import { parseVersion } from '../../src/model/nccl/versions.js';

export const ROOT = join(import.meta.dirname, '..', '..');
const CORPUS = join(ROOT, 'test/topo/corpus');
const ORACLE = join(ROOT, 'test/topo/oracle');

export interface OracleCase {
  case: { nodes: number; env: Record<string, string>; collnetPlugin?: boolean };
  out: Record<string, unknown> & { error?: string; code?: number };
  graphDump: { id: number; nchannels: number; channels: { net: number[]; ranks?: number[]; gpus?: { dev: number; rank?: number }[] }[] }[] | null;
  warnings: string[];
}
export interface OracleFile {
  tag: string;
  id: string;
  corpus: string;
  answers: OracleCase[];
}

export const tags = (): string[] => (existsSync(ORACLE) ? readdirSync(ORACLE).sort() : []);
export function oracleFiles(tag: string): OracleFile[] {
  return readdirSync(join(ORACLE, tag)).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(ORACLE, tag, f), 'utf8')) as OracleFile);
}
export function corpusText(id: string): string {
  return corpusXml(JSON.parse(readFileSync(join(CORPUS, `${id}.json`), 'utf8')));
}

/** The engine on one recorded case: its result, or the initialisation error NCCL would return. */
export function engineOn(tag: string, id: string, c: OracleCase['case'], search = true): EngineResult | { error: string } {
  const system = parseXml(corpusText(id), id);
  const profile = topoProfileFor(parseVersion(tag));
  try {
    // Where the graph search is not modelled (TopoProfile.searchModelled) every other field is compared.
    return runEngine({ system, nodes: c.nodes, vars: c.env, profile, search: search && profile.searchModelled, collnetPlugin: !!c.collnetPlugin });
  } catch (e) {
    if (e instanceof NcclInitError) return { error: e.result };
    throw e;
  }
}

/** The fields compared, each a list of (where, expected, actual); equal when every entry agrees. */
export type Tally = Map<string, { agree: number; total: number; diffs: string[] }>;

function add(t: Tally, field: string, where: string, expected: unknown, actual: unknown): void {
  const e = t.get(field) ?? { agree: 0, total: 0, diffs: [] };
  // The oracle prints floats with 9 significant digits, which names one 32-bit float exactly.
  const f32 = (_: string, v: unknown) => (typeof v === 'number' ? Math.fround(v) : v);
  const ok = JSON.stringify(expected, f32) === JSON.stringify(actual, f32);
  e.total++;
  if (ok) e.agree++;
  else if (e.diffs.length < 20) e.diffs.push(`${where}: NCCL ${JSON.stringify(expected)}, ncclx ${JSON.stringify(actual)}`);
  t.set(field, e);
}

const GRAPH_NAMES: Record<number, string> = { 0: 'ring', 1: 'tree', 2: 'collnetChain', 3: 'nvls', 4: 'collnetDirect' };

/** Compare one recorded case with the engine, adding to the tally. */
export function compareCase(t: Tally, where: string, rec: OracleCase, got: EngineResult | { error: string }, tag: string): void {
  const o = rec.out as unknown as EngineResult & { error?: string };
  if (o.error || 'error' in got) {
    add(t, 'initialisation', where, o.error ? 'fails' : 'ok', 'error' in got ? 'fails' : 'ok');
    return;
  }
  const g = got as EngineResult;
  add(t, 'GPU set', where, o.gpus.map((x) => [x.rank, x.dev, x.sm, x.busid]), g.gpus.map((x) => [x.rank, x.dev, x.sm, x.busid]));
  add(t, 'NIC set', where, o.nets.map((x) => [x.dev, x.name, x.bw, x.port]), g.nets.map((x) => [x.dev, x.name, x.bw, x.port]));
  add(t, 'search bandwidths (maxBw, totalBw)', where, [o.maxBw, o.totalBw], [g.maxBw, g.totalBw]);
  o.gpus.forEach((_, i) => {
    o.nets.forEach((_, n) => {
      const e = o.gpuNet[i]![n]! as unknown as { type: string; bw: number; gdr: number; gdrRead: number; proxy: number };
      const a = g.gpuNet[i]?.[n];
      add(t, 'GPU/NIC path type', `${where} gpu${i} net${n}`, e.type, a?.type);
      add(t, 'GPU/NIC bandwidth', `${where} gpu${i} net${n}`, e.bw, a?.bw);
      add(t, 'GPUDirect RDMA (write, read)', `${where} gpu${i} net${n}`, [!!e.gdr, !!e.gdrRead], [a?.gdr, a?.gdrRead]);
      add(t, 'PXN relay (proxy rank)', `${where} gpu${i} net${n}`, e.proxy, a?.proxy);
    });
    o.gpus.forEach((_, h) => {
      const e = o.gpuGpu[i]![h]!;
      const a = g.gpuGpu[i]?.[h];
      add(t, 'GPU/GPU path type', `${where} gpu${i} gpu${h}`, e.type, a?.type);
      add(t, 'GPU/GPU bandwidth', `${where} gpu${i} gpu${h}`, e.bw, a?.bw);
    });
    add(t, 'local NICs (channels 0-3)', `${where} gpu${i}`, o.localNets[i], g.localNets[i]);
  });
  if (!g.graphs.length) return;
  // The channels after ncclTopoPostset (recorded by the oracle's knobs driver: docs/topo-oracle.md).
  const ch = (rec.out as { channels?: { searched: number; nChannels: number; collChannels: number; collnet: number; list?: { ranks: number[]; net?: number[] }[] } }).channels;
  if (ch?.list) {
    const mine = g.channels;
    add(t, 'final channels: count (searched, nChannels, collChannels, CollNet)', where, [ch.searched, ch.nChannels, ch.collChannels, !!ch.collnet], mine && [mine.searched, mine.nChannels, mine.nChannels, mine.collnet]);
    add(t, 'final channels: rings and NICs', where, ch.list.map((c) => [c.ranks, c.net ?? null]), mine?.list.map((c) => [c.ranks, c.net]));
  }
  // The first driver (answers without `channels`: 2.19.1 to 2.22.3) searched NVLS on every file; NCCL's init.cc
  // (ncclNvlsInit) leaves it off with two GPUs or fewer, as ncclx does (channels.ts graphsComputed). Its NVLS answer
  // there is the driver's, not NCCL's: not compared (docs/topo-oracle.md, step 5).
  const firstDriverNvls = !('channels' in rec.out) && g.computed !== null && !g.computed.nvls;
  for (const eg of o.graphs) {
    if (eg.id === 3 && firstDriverNvls) continue;
    const ag = g.graphs.find((x) => x.id === eg.id);
    const name = GRAPH_NAMES[eg.id] ?? String(eg.id);
    add(t, `${name}: nChannels, bw, types`, where, [eg.nChannels, eg.bwIntra, eg.bwInter, eg.typeIntra, eg.typeInter, eg.pattern, eg.crossNic], ag && [ag.nChannels, ag.bwIntra, ag.bwInter, ag.typeIntra, ag.typeInter, ag.pattern, ag.crossNic]);
    add(t, `${name}: channels (ranks, NICs)`, where, eg.channels, ag?.channels);
    const dump = rec.graphDump?.find((x) => x.id === eg.id);
    if (dump) {
      // The dump names each GPU by its NVML device number, and from 2.28 by its rank too.
      const devOf = new Map(g.gpus.map((x) => [x.rank, x.dev]));
      const expected = dump.channels.map((c) => ({ net: c.net, gpus: c.gpus ?? (c.ranks ?? []).map((r) => ({ dev: o.gpus.find((x) => x.rank === r)!.dev, rank: r })) }));
      const withRank = dump.channels.some((c) => (c.gpus ?? []).some((x) => x.rank !== undefined) || c.ranks);
      // From 2.21.5 the dump names an NVLS channel's head only (TopoProfile.search.nvlsDumpHead).
      const headOnly = eg.id === 3 && topoProfileFor(parseVersion(tag)).search.nvlsDumpHead;
      const mine = (ag?.channels ?? []).map((c) => ({ net: o.inter ? c.net : [], gpus: (headOnly ? c.ranks.slice(0, 1) : c.ranks).map((r) => (withRank ? { dev: devOf.get(r), rank: r } : { dev: devOf.get(r) })) }));
      add(t, 'graph dump (NCCL_GRAPH_DUMP_FILE) channels', `${where} ${name}`, expected, mine);
    }
  }
}

/** Every recorded case of a tag (or those `only` keeps); `search` false compares everything but the graphs. */
export function sweep(tag: string, only?: (f: OracleFile, c: OracleCase) => boolean, search: (f: OracleFile, c: OracleCase) => boolean = () => true): { tally: Tally; topologies: number; cases: number } {
  const tally: Tally = new Map();
  let cases = 0;
  const files = oracleFiles(tag);
  for (const f of files) {
    for (const rec of f.answers) {
      if (only && !only(f, rec)) continue;
      cases++;
      const where = `${f.id} N=${rec.case.nodes}${Object.entries(rec.case.env).map(([k, v]) => ` ${k}=${v}`).join('')}`;
      compareCase(tally, where, rec, engineOn(tag, f.id, rec.case, search(f, rec)), tag);
    }
  }
  return { tally, topologies: files.length, cases };
}

/** The answers recorded on the XML ncclx builds from a /sys fixture (record.mjs --sys), kept apart from the corpus. */
export interface SysOracleFile {
  tag: string;
  id: string;
  fixture: string;
  xml: string;
  answers: OracleCase[];
}
const SYS_ORACLE = join(ROOT, 'test/topo/oracle-sys');
export const sysTags = (): string[] => (existsSync(SYS_ORACLE) ? readdirSync(SYS_ORACLE).sort() : []);
export const sysOracleFiles = (tag: string): SysOracleFile[] => readdirSync(join(SYS_ORACLE, tag)).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(SYS_ORACLE, tag, f), 'utf8')) as SysOracleFile);

/** The engine on each recorded /sys fixture's XML, for the cases `only` keeps, compared with the oracle. */
export function sysSweep(tag: string, only: (c: OracleCase) => boolean, fixtures?: readonly string[]): { tally: Tally; cases: number } {
  const tally: Tally = new Map();
  const profile = topoProfileFor(parseVersion(tag));
  let cases = 0;
  for (const f of sysOracleFiles(tag)) {
    if (fixtures && !fixtures.includes(f.id)) continue;
    const system = parseXml(f.xml, f.id);
    for (const rec of f.answers.filter(only)) {
      cases++;
      const where = `${f.id} N=${rec.case.nodes}${Object.entries(rec.case.env).map(([k, v]) => ` ${k}=${v}`).join('')}`;
      let got: EngineResult | { error: string };
      try {
        got = runEngine({ system, nodes: rec.case.nodes, vars: rec.case.env, profile, collnetPlugin: !!rec.case.collnetPlugin });
      } catch (e) {
        if (!(e instanceof NcclInitError)) throw e;
        got = { error: e.result };
      }
      compareCase(tally, where, rec, got, tag);
    }
  }
  return { tally, cases };
}

/** The fields of a tally that disagree, with their first differences. */
export const disagreements = (tally: Tally): string[] => [...tally].filter(([, v]) => v.agree !== v.total).map(([k, v]) => `${k}: ${v.agree}/${v.total}\n  ${v.diffs.join('\n  ')}`);
