// Quoting is verified by running the real interpreters where they exist here (sh, bash, node).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { dotenvRefusal, EnvFormatError, fishQuote, formatEnv, yamlQuote } from '../../src/report/env-formats.js';

const ODD = ["e$x;(1", "it's", 'a"b', 'back\\slash', '=eth0,=ib0', '^docker,lo', 'tab\there', 'spa ce', '$(touch /tmp/pwned)', '`id`'];
const vars = ODD.map((value, i) => ({ name: `V${i}`, value }));

describe('bash/sh exports', () => {
  it('sh evaluates each value back exactly, running nothing else', () => {
    const dir = tempDir('ncclx-env-');
    const script = formatEnv(vars, 'bash') + vars.map((v) => `printf '%s\\0' "$${v.name}"`).join('\n') + '\n';
    writeFileSync(join(dir, 's.sh'), script);
    for (const shell of ['sh', 'bash']) {
      const r = spawnSync(shell, [join(dir, 's.sh')], { encoding: 'utf8', cwd: dir });
      expect(r.status).toBe(0);
      expect(r.stdout.split('\0').slice(0, -1)).toEqual(ODD);
    }
  });
});

describe('other formats', () => {
  it('json round-trips', () => {
    expect(JSON.parse(formatEnv(vars, 'json'))).toEqual(Object.fromEntries(vars.map((v) => [v.name, v.value])));
  });
  it('k8s env list: YAML double-quoted scalars (JSON strings)', () => {
    const out = formatEnv([{ name: 'NCCL_SOCKET_IFNAME', value: "=e$x;('1" }], 'k8s');
    expect(out).toBe('env:\n  - name: NCCL_SOCKET_IFNAME\n    value: "=e$x;(\'1"\n');
    expect(JSON.parse(yamlQuote('a"b\\c'))).toBe('a"b\\c');
  });
  it('nccl-conf writes values verbatim (NCCL strips nothing) and refuses line breaks', () => {
    expect(formatEnv([{ name: 'NCCL_SOCKET_IFNAME', value: '=eth0' }], 'nccl-conf')).toBe('NCCL_SOCKET_IFNAME==eth0\n');
    expect(() => formatEnv([{ name: 'X', value: 'a\nb' }], 'nccl-conf')).toThrow(EnvFormatError);
  });
  it('fish single quotes escape only backslash and quote', () => {
    expect(fishQuote("it's")).toBe("'it\\'s'");
    expect(fishQuote('a\\b$c')).toBe("'a\\\\b$c'");
    expect(formatEnv([{ name: 'A', value: 'x' }], 'fish')).toBe("set -gx A 'x'\n");
  });
  it('dotenv: unquoted when every reader reads it alike, refused otherwise', () => {
    expect(formatEnv([{ name: 'NCCL_SOCKET_IFNAME', value: '=eth0,ens1f0np0' }, { name: 'NCCL_IB_HCA', value: '^=mlx5_0:1' }], 'dotenv')).toBe('NCCL_SOCKET_IFNAME==eth0,ens1f0np0\nNCCL_IB_HCA=^=mlx5_0:1\n');
    expect(dotenvRefusal('=eth0')).toBeNull();
    for (const v of ['e$x;(1', "it's", 'a"b', 'a\\b', 'a`id`', '${HOME}', ' a', 'a  b', 'a b ', 'a\tb', '#x', '~root', 'a $b']) expect(dotenvRefusal(v), v).not.toBeNull();
    // A list of safe words with single spaces (RDMA_PEER_IFACES) is written double-quoted: bash, dash, npm dotenv and python-dotenv read it exactly.
    expect(dotenvRefusal('ens1 ens2')).toBeNull();
    expect(formatEnv([{ name: 'RDMA_PEER_IFACES', value: 'ens1 ens2' }], 'dotenv')).toBe('RDMA_PEER_IFACES="ens1 ens2"\n');
    expect(() => formatEnv([{ name: 'X', value: 'r$(id)3' }], 'dotenv')).toThrow(EnvFormatError);
  });
  it('invalid variable names are refused', () => {
    expect(() => formatEnv([{ name: 'BAD-NAME', value: 'x' }], 'bash')).toThrow(EnvFormatError);
  });
});
