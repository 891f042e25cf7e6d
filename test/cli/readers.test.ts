// Text from the node through every output a line-oriented reader reads (each
// `ncclx env` format, `doctor --format prom`), read back by those readers. A host name, an interface name, an NCCL_*
// value echoed in a comment, a conf-file value or a --peer-ifaces entry may
// hold line breaks that only some readers see (U+2028, U+2029 and U+0085 are
// line breaks to YAML 1.1 — PyYAML, and go-yaml as kubectl uses it — and to
// JavaScript's multiline regular expressions), and controls YAML refuses.
// Whatever the text, every reader must get exactly the entries of
// `--format json`, nothing more (an injected LD_PRELOAD) and nothing less.

import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as npmDotenv } from 'dotenv';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { makeContext } from '../../src/model/doctor/context.js';
import { envPlan } from '../../src/model/advice/env-plan.js';
import { effectiveEnv } from '../../src/model/nccl/conf.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import { ENV_FORMATS, type EnvFormat } from '../../src/report/env-formats.js';
import { envHeader, envText } from '../../src/report/env-text.js';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';

const CLI = join(__dirname, '../../dist/cli.js');
const FIX = join(__dirname, '../fixtures');
const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const VERSION = '2.30.7';
const tmp = tempDir('ncclx-readers-');
/** A python3 that imports the module: Debian's (what CI installs) first. */
const pythonWith = (mod: string) => ['/usr/bin/python3', 'python3'].find((py) => spawnSync(py, ['-c', `import ${mod}`], { encoding: 'utf8' }).status === 0) ?? null;
const PYYAML = pythonWith('yaml');
const PYDOTENV = pythonWith('dotenv');
const PROMTOOL = spawnSync('sh', ['-c', 'command -v promtool']).status === 0;

/** Line breaks some reader sees, then the controls and format characters YAML refuses or a terminal obeys. */
const BREAKS = ['\u2028', '\u2029', '\u0085', '\r', '\n', '\v', '\f'];
const OTHERS = ['\x01\x1b\x7f\x9b\ufeff\u202e\t"\'\\#: \u{1F600}', '\x00', '\ud800'];
/** An entry a reader that splits the line there would add to the container's environment. */
const inject = (sep: string) => `x${sep}  - name: LD_PRELOAD${sep}    value: /e.so${sep}LD_PRELOAD=/e.so${sep}#`;
const PAYLOADS = [...BREAKS.map(inject), ...OTHERS.map((c) => `a${c}b`)];

let base: NodeSnapshot;
beforeAll(async () => {
  base = await probeNode({ root: join(FIX, 'roce-healthy'), kernel: true, rdma: true, env: {} });
});

interface Case {
  what: string;
  snap: () => NodeSnapshot;
  peer?: string[];
}

/** Where node text reaches the output: comments (host, echoed values, notes) and values (interface names). */
function cases(p: string): Case[] {
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
function jsonEntries(body: string): Record<string, string> {
  return Object.fromEntries(Object.entries(JSON.parse(body) as Record<string, string | null>).filter((e): e is [string, string] => e[1] !== null));
}

function k8sEntries(doc: unknown): Record<string, string> {
  const env = (doc as { env: { name: string; value: string }[] }).env;
  return Object.fromEntries(env.map((e) => [e.name, e.value]));
}

interface Rendered {
  what: string;
  payload: string;
  json: Record<string, string>;
  out: Record<EnvFormat, { body: string; refused: string[]; error: string | null }>;
}

function render(c: Case, payload: string): Rendered {
  const ctx = makeContext(c.snap(), { ncclVersion: VERSION }, { ncclVersion: VERSION, uplinkRegex: /^eth[0-9]+$/, include: [] });
  const plan = envPlan(ctx, { debug: false, peerIfaces: c.peer });
  const out = {} as Rendered['out'];
  for (const f of ENV_FORMATS) {
    const t = envText(plan, envHeader(ctx), f);
    out[f] = { body: t.body, refused: t.refused.map((r) => r.name), error: t.error };
  }
  return { what: c.what, payload, json: out.json.error ? {} : jsonEntries(out.json.body), out };
}

/** Every comment line stays one line for every reader: no control, line or paragraph separator left raw. */
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\u202e]/;

describe('hostile text through every env format, read back by each format\'s readers', () => {
  let all: Rendered[] = [];
  beforeAll(() => {
    all = PAYLOADS.flatMap((p) => cases(p).map((c) => render(c, p))).filter((r) => r.out.json.error === null);
  });
  const label = (r: Rendered) => `${r.what} ${JSON.stringify(r.payload)}`;

  it('comments hold no raw control, line or paragraph separator in any format', () => {
    for (const r of all) {
      for (const f of ENV_FORMATS) {
        for (const line of r.out[f].body.split('\n')) if (line.startsWith('#')) expect(RAW.test(line), `${label(r)} ${f}: ${JSON.stringify(line)}`).toBe(false);
      }
    }
  });

  it('k8s: npm yaml (YAML 1.2 and 1.1) reads exactly the json entries', () => {
    for (const r of all) {
      for (const version of ['1.2', '1.1'] as const) expect(k8sEntries(parseYaml(r.out.k8s.body, { version })), `${label(r)} YAML ${version}`).toEqual(r.json);
    }
  });

  (PYYAML || IN_CI ? it : it.skip)(`k8s: PyYAML (YAML 1.1, the line-break rules of kubectl's go-yaml) reads exactly the json entries${PYYAML || IN_CI ? '' : ' — skipped: python3-yaml not installed (apt-get install python3-yaml); CI installs it and never skips'}`, () => {
    expect(PYYAML, 'apt-get install python3-yaml').not.toBeNull();
    const file = join(tmp, 'docs.json');
    writeFileSync(file, JSON.stringify(all.map((r) => r.out.k8s.body)));
    const py = spawnSync(PYYAML!, ['-c', 'import json,sys,yaml; print(json.dumps([yaml.safe_load(d) for d in json.load(open(sys.argv[1]))]))', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(py.status, py.stderr).toBe(0);
    const docs = JSON.parse(py.stdout) as unknown[];
    all.forEach((r, i) => expect(k8sEntries(docs[i]), label(r)).toEqual(r.json));
  });

  it('bash and dash evaluate exactly the json entries, and run nothing', () => {
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
  });

  it('dotenv: npm dotenv reads the json entries less the refused ones; nccl-conf: NCCL reads them', () => {
    const profile = profileFor(parseVersion(VERSION));
    for (const r of all) {
      const kept = Object.fromEntries(Object.entries(r.json).filter(([n]) => !r.out.dotenv.refused.includes(n)));
      expect(npmDotenv(r.out.dotenv.body), label(r)).toEqual(kept);
      if (r.out['nccl-conf'].error) continue;
      const conf = effectiveEnv({ process: {}, confFiles: [{ path: '/etc/nccl.conf', role: 'etc', content: r.out['nccl-conf'].body, error: null }], home: { passwd: null, env: null } }, profile);
      expect(conf.vars, label(r)).toEqual(r.json);
    }
  });

  (PYDOTENV || IN_CI ? it : it.skip)(`dotenv: python-dotenv reads the json entries less the refused ones${PYDOTENV || IN_CI ? '' : ' — skipped: python3-dotenv not installed (apt-get install python3-dotenv)'}`, () => {
    expect(PYDOTENV, 'apt-get install python3-dotenv').not.toBeNull();
    const file = join(tmp, 'dotenv.json');
    writeFileSync(file, JSON.stringify(all.map((r) => r.out.dotenv.body)));
    const py = spawnSync(PYDOTENV!, ['-c', 'import io,json,sys,dotenv; print(json.dumps([dotenv.dotenv_values(stream=io.StringIO(d)) for d in json.load(open(sys.argv[1]))]))', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(py.status, py.stderr).toBe(0);
    const docs = JSON.parse(py.stdout) as Record<string, string>[];
    all.forEach((r, i) => expect(docs[i], label(r)).toEqual(Object.fromEntries(Object.entries(r.json).filter(([n]) => !r.out.dotenv.refused.includes(n)))));
  });
});

describe('the built CLI: a host name from --root /etc/hostname', () => {
  it('env --format k8s read by npm yaml and PyYAML: the four variables, no LD_PRELOAD', () => {
    const root = join(tmp, 'node');
    cpSync(join(FIX, 'roce-healthy'), root, { recursive: true });
    writeFileSync(join(root, 'etc/hostname'), `h${inject('\u2028')}\n`);
    const k8s = spawnSync(process.execPath, [CLI, 'env', '--root', root, '--format', 'k8s', '--nccl-version', VERSION, '--peer-ifaces', `enp24s0np0 q${inject('\u0085').replace(/\s/g, '')}`], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp } });
    expect(k8s.status, k8s.stderr).toBe(0);
    const want = ['NCCL_SOCKET_IFNAME', 'GLOO_SOCKET_IFNAME', 'NCCL_IB_HCA', 'RDMA_PEER_IFACES'];
    expect(Object.keys(k8sEntries(parseYaml(k8s.stdout, { version: '1.1' })))).toEqual(want);
    expect(k8s.stdout).toMatch(/^# ncclx env for hx\\u2028 {2}- name: LD_PRELOAD/m);
    expect(k8s.stdout).toMatch(/^# note: the peer advertises qx\\x85-name:LD_PRELOAD/m);
    if (!PYYAML) return;
    const py = spawnSync(PYYAML, ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'], { input: k8s.stdout, encoding: 'utf8' });
    expect(Object.keys(k8sEntries(JSON.parse(py.stdout)))).toEqual(want);
  });
  it('env --format json: the summary on standard error is escaped as the comments are', () => {
    const file = join(tmp, 'host.json');
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24'])]);
    writeFileSync(file, JSON.stringify({ ...snap, host: { ...snap.host, hostname: `h${inject('\u2028')}\x1b[2J` } }));
    const r = spawnSync(process.execPath, [CLI, 'env', '--snapshot', file, '--format', 'json', '--nccl-version', VERSION], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^# ncclx env for hx\\u2028 {2}- name: LD_PRELOAD.*\\x1b\[2J, NCCL/m);
    expect(r.stderr).not.toMatch(RAW);
  });
});

describe('doctor --format prom: a hostile host name stays one label value', () => {
  /** The host label of every sample line, unescaped as the text format defines (\\\\, \\", \\n). */
  const hostLabels = (text: string) =>
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => /host="((?:[^"\\]|\\.)*)"/.exec(l)![1]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));
  (PROMTOOL || IN_CI ? it : it.skip)(`promtool checks it, and every series carries the exact name${PROMTOOL || IN_CI ? '' : ' — skipped: promtool not installed (apt-get install prometheus); CI installs it and never skips'}`, () => {
    expect(PROMTOOL, 'apt-get install prometheus').toBe(true);
    const host = `h\u2028x\u0085\x1b[2J\x01\x7f\x9b\r"\\\n# HELP evil x\nevil 1`;
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24'])]);
    const file = join(tmp, 'prom.json');
    writeFileSync(file, JSON.stringify({ ...snap, host: { ...snap.host, hostname: host } }));
    const r = spawnSync(process.execPath, [CLI, 'doctor', '--snapshot', file, '--format', 'prom', '--nccl-version', VERSION], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp } });
    expect([0, 1]).toContain(r.status);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: r.stdout, encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/^evil/m);
    const labels = hostLabels(r.stdout);
    expect(labels.length).toBeGreaterThan(10);
    expect(new Set(labels)).toEqual(new Set([host]));
  });
});
