// Text from the node through every output a line-oriented reader reads (each
// `ncclx env` format, `doctor --format prom`), read back by those readers. A host name, an interface name, an NCCL_*
// value echoed in a comment, a conf-file value or a --peer-ifaces entry may
// hold line breaks that only some readers see (U+2028, U+2029 and U+0085 are
// line breaks to YAML 1.1 — PyYAML, and go-yaml as kubectl uses it — and to
// JavaScript's multiline regular expressions), and controls YAML refuses.
// Whatever the text, every reader must get exactly the entries of
// `--format json`, nothing more (an injected LD_PRELOAD) and nothing less.

import { spawnSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import { cases, checkComments, checkDotenvAndConf, checkNpmYaml, checkPyDotenv, checkPyYaml, checkShells, IN_CI, k8sEntries, PYDOTENV, PYYAML, RAW, render, VERSION, type Rendered } from '../helpers/env-readers.js';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';

const CLI = join(__dirname, '../../dist/cli.js');
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-readers-');
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

describe('hostile text through every env format, read back by each format\'s readers', () => {
  let all: Rendered[] = [];
  beforeAll(() => {
    all = PAYLOADS.flatMap((p) => cases(base, p).map((c) => render(c, p))).filter((r) => r.out.json.error === null);
  });

  it('comments hold no raw control, line or paragraph separator in any format', () => checkComments(all));
  it('k8s: npm yaml (YAML 1.2 and 1.1) reads exactly the json entries', () => checkNpmYaml(all));
  (PYYAML || IN_CI ? it : it.skip)(`k8s: PyYAML (YAML 1.1, the line-break rules of kubectl's go-yaml) reads exactly the json entries${PYYAML || IN_CI ? '' : ' — skipped: python3-yaml not installed (apt-get install python3-yaml); CI installs it and never skips'}`, () => checkPyYaml(all, tmp));
  it('bash and dash evaluate exactly the json entries, and run nothing', () => checkShells(all, tmp));
  it('dotenv: npm dotenv reads the json entries less the refused ones; nccl-conf: NCCL reads them', () => checkDotenvAndConf(all));
  (PYDOTENV || IN_CI ? it : it.skip)(`dotenv: python-dotenv reads the json entries less the refused ones${PYDOTENV || IN_CI ? '' : ' — skipped: python3-dotenv not installed (apt-get install python3-dotenv)'}`, () => checkPyDotenv(all, tmp));
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
