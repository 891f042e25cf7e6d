// Text from the node through every `ncclx env` format, read back by each
// format's own readers (npm yaml as YAML 1.2 and 1.1, PyYAML, bash, dash, npm
// dotenv, python-dotenv, NCCL's conf rules): shared by test/cli/readers.test.ts
// (fixed payloads) and test/fuzz/shapes.test.ts (random ones).

import { readerOf } from '../../src/model/advice/env-plan.js';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as npmDotenv } from 'dotenv';
import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { envPlan } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import { effectiveEnv } from '../../src/model/nccl/conf.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { ENV_FORMATS, type EnvFormat } from '../../src/report/env-formats.js';
import { envHeader, envText } from '../../src/report/env-text.js';
import { link, snapshotOf } from '../unit/helpers.js';

export const VERSION = '2.30.7';
export const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';

/** A python3 that imports the module: Debian's (what CI installs) first. */
const pythonWith = (mod: string) => ['/usr/bin/python3', 'python3'].find((py) => spawnSync(py, ['-c', `import ${mod}`], { encoding: 'utf8' }).status === 0) ?? null;
export const PYYAML = pythonWith('yaml');
export const PYDOTENV = pythonWith('dotenv');

export interface Case {
  what: string;
  snap: () => NodeSnapshot;
  peer?: string[];
}

/** Where node text reaches the output: comments (host, echoed values, notes) and values (interface names). */
export function cases(base: NodeSnapshot, p: string): Case[] {
  const clean = p.replace(/\0/g, '');
  return [
    { what: 'snapshot host name', snap: () => ({ ...base, host: { ...base.host, hostname: `h${clean}` } }) },
    {
      what: 'NCCL_* values echoed in comments',
      snap: () => ({ ...base, env: { ...base.env, process: { NCCL_NVB_DISABLE: clean, NCCL_IB_SUBNET_AWARE_ROUTING: clean, NCCL_CROSS_NIC: clean, NCCL_IB_MERGE_NICS: clean, NCCL_NET: clean } } }),
    },
    {
      what: 'conf-file values',
      snap: () => ({ ...base, env: { ...base.env, process: { NCCL_CONF_FILE: '/x.conf' }, confFiles: [{ path: '/x.conf', role: 'NCCL_CONF_FILE', content: `NCCL_CROSS_NIC=${p}\nNCCL_NVB_DISABLE=${p}\n`, error: null }] } }),
    },
    { what: '--peer-ifaces entries', snap: () => base, peer: [`p${clean.replace(/[\s,]/g, '')}`, 'enp24s0np0'] },
    { what: 'interface names (values)', snap: () => snapshotOf([link('lo', ['127.0.0.1/8']), link(`e${clean.replace(/[\s/:,]/g, '')}`.slice(0, 15), ['10.0.0.5/24'])]) },
  ];
}

/** The entries `--format json` sets (null = unset, which the other formats say in a note). */
export function jsonEntries(body: string): Record<string, string> {
  return Object.fromEntries(Object.entries(JSON.parse(body) as Record<string, string | null>).filter((e): e is [string, string] => e[1] !== null));
}

export function k8sEntries(doc: unknown): Record<string, string> {
  const env = (doc as { env: { name: string; value: string }[] }).env;
  return Object.fromEntries(env.map((e) => [e.name, e.value]));
}

export interface Rendered {
  what: string;
  payload: string;
  json: Record<string, string>;
  out: Record<EnvFormat, { body: string; refused: string[]; error: string | null }>;
}

export function render(c: Case, payload: string): Rendered {
  const ctx = makeContext(c.snap(), { ncclVersion: VERSION }, { ncclVersion: VERSION, uplinkRegex: /^eth[0-9]+$/, include: [] });
  const plan = envPlan(ctx, { debug: false, peerIfaces: c.peer });
  const out = {} as Rendered['out'];
  for (const f of ENV_FORMATS) {
    const t = envText(plan, envHeader(ctx), f);
    out[f] = { body: t.body, refused: t.refused.map((r) => r.name), error: t.error };
  }
  return { what: c.what, payload, json: out.json.error ? {} : jsonEntries(out.json.body), out };
}

/** A raw control, line or paragraph separator, BOM or bidi override: what no comment line may hold. */
export const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\u202e]/;


export const label = (r: Rendered) => `${r.what} ${JSON.stringify(r.payload)}`;

/** Every comment line stays one line for every reader: no control, line or paragraph separator left raw. */
export function checkComments(all: Rendered[]): void {
  for (const r of all) {
    for (const f of ENV_FORMATS) {
      for (const line of r.out[f].body.split('\n')) if (line.startsWith('#')) expect(RAW.test(line), `${label(r)} ${f}: ${JSON.stringify(line)}`).toBe(false);
    }
  }
}

/** k8s: npm yaml (YAML 1.2 and 1.1) reads exactly the json entries. */
export function checkNpmYaml(all: Rendered[]): void {
  for (const r of all) {
    for (const version of ['1.2', '1.1'] as const) expect(k8sEntries(parseYaml(r.out.k8s.body, { version })), `${label(r)} YAML ${version}`).toEqual(r.json);
  }
}

/** Every text read by one python3 run: `read` is a Python expression of `d`, the text; the answers come back as JSON. */
function readWithPython(python: string | null, pkg: string, imports: string, read: string, texts: string[], tmp: string): unknown[] {
  expect(python, `apt-get install ${pkg}`).not.toBeNull();
  const file = join(tmp, `${pkg}.json`);
  writeFileSync(file, JSON.stringify(texts));
  const py = spawnSync(python!, ['-c', `import json,sys,${imports}; print(json.dumps([${read} for d in json.load(open(sys.argv[1]))]))`, file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(py.status, py.stderr).toBe(0);
  return JSON.parse(py.stdout) as unknown[];
}

/** k8s: PyYAML (YAML 1.1, the line-break rules of kubectl's go-yaml) reads exactly the json entries. */
export function checkPyYaml(all: Rendered[], tmp: string): void {
  const docs = readWithPython(PYYAML, 'python3-yaml', 'yaml', 'yaml.safe_load(d)', all.map((r) => r.out.k8s.body), tmp);
  all.forEach((r, i) => expect(k8sEntries(docs[i]), label(r)).toEqual(r.json));
}

/** bash and dash evaluate exactly the json entries, and run nothing (`tmp` holds only *.json files). */
export function checkShells(all: Rendered[], tmp: string): void {
  // One script per shell: each output in a subshell, then its values, NUL-separated, and an empty field.
  const script = all.map((r) => `(\n${r.out.bash.body}\nprintf '%s\\0' ${Object.keys(r.json).map((n) => `"\${${n}-<unset>}"`).join(' ')} ''\n)\n`).join('');
  for (const sh of ['bash', 'dash']) {
    const x = spawnSync(sh, ['-s'], { input: script, encoding: 'utf8', cwd: tmp, env: { PATH: process.env['PATH'] ?? '' }, maxBuffer: 64 << 20 });
    expect(x.status, `${sh}: ${x.stderr}`).toBe(0);
    expect(x.stderr).toBe('');
    const fields = x.stdout.split('\0');
    let i = 0;
    for (const r of all) {
      const names = Object.keys(r.json);
      expect(fields.slice(i, i + names.length + 1), `${label(r)} ${sh}`).toEqual([...names.map((n) => r.json[n]), '']);
      i += names.length + 1;
    }
  }
  expect(readdirSync(tmp).filter((f) => !f.endsWith('.json'))).toEqual([]);
}

/** dotenv: npm dotenv reads the json entries less the refused ones; nccl-conf: NCCL reads them. */
export function checkDotenvAndConf(all: Rendered[]): void {
  const profile = profileFor(parseVersion(VERSION));
  for (const r of all) {
    const kept = Object.fromEntries(Object.entries(r.json).filter(([n]) => !r.out.dotenv.refused.includes(n)));
    expect(npmDotenv(r.out.dotenv.body), label(r)).toEqual(kept);
    if (r.out['nccl-conf'].error) continue;
    const conf = effectiveEnv({ process: {}, confFiles: [{ path: '/etc/nccl.conf', role: 'etc', content: r.out['nccl-conf'].body, error: null }], home: { passwd: null, env: null } }, profile);
    // nccl.conf holds only what NCCL reads (readerOf): the json entries NCCL reads, exactly.
    expect(conf.vars, label(r)).toEqual(Object.fromEntries(Object.entries(r.json).filter(([n]) => readerOf(n).ncclConf)));
  }
}

/** dotenv: python-dotenv reads the json entries less the refused ones. */
export function checkPyDotenv(all: Rendered[], tmp: string): void {
  const docs = readWithPython(PYDOTENV, 'python3-dotenv', 'io,dotenv', 'dotenv.dotenv_values(stream=io.StringIO(d))', all.map((r) => r.out.dotenv.body), tmp);
  all.forEach((r, i) => expect(docs[i], label(r)).toEqual(Object.fromEntries(Object.entries(r.json).filter(([n]) => !r.out.dotenv.refused.includes(n)))));
}
