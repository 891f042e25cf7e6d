import { describe, expect, it } from 'vitest';
import { effectiveEnv, type EnvInput } from '../../src/model/nccl/conf.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';

const p = (v: string) => profileFor(parseVersion(v));
const input = (process: Record<string, string>, files: Record<string, string>, home = '/home/u'): EnvInput => ({
  process,
  confFiles: Object.entries(files).map(([path, content]) => ({ path, role: 'etc', content, error: null })),
  home: { passwd: home, env: home },
});

describe('conf files (docs/nccl/params.md §1)', () => {
  it('environment beats the user file, which beats /etc/nccl.conf', () => {
    const e = effectiveEnv(
      input({ NCCL_SOCKET_IFNAME: 'env0' }, { '/home/u/.nccl.conf': 'NCCL_SOCKET_IFNAME=user0\nNCCL_IB_HCA=mlx5_0\n', '/etc/nccl.conf': 'NCCL_IB_HCA=mlx5_9\nNCCL_DEBUG=INFO\n' }),
      p('2.28.3'),
    );
    expect(e.vars['NCCL_SOCKET_IFNAME']).toBe('env0');
    expect(e.vars['NCCL_IB_HCA']).toBe('mlx5_0');
    expect(e.vars['NCCL_DEBUG']).toBe('INFO');
    expect(e.origins['NCCL_IB_HCA']).toEqual({ source: 'conf', path: '/home/u/.nccl.conf', line: 2 - 1 + 1 });
  });
  it('NCCL_CONF_FILE replaces ~/.nccl.conf from 2.23.4 only', () => {
    const files = { '/cfg': 'NCCL_SOCKET_IFNAME=fromcfg\n', '/home/u/.nccl.conf': 'NCCL_SOCKET_IFNAME=fromhome\n' };
    expect(effectiveEnv(input({ NCCL_CONF_FILE: '/cfg' }, files), p('2.23.4')).vars['NCCL_SOCKET_IFNAME']).toBe('fromcfg');
    expect(effectiveEnv(input({ NCCL_CONF_FILE: '/cfg' }, files), p('2.22.3')).vars['NCCL_SOCKET_IFNAME']).toBe('fromhome');
    expect(effectiveEnv(input({ NCCL_CONF_FILE: '' }, files), p('2.28.3')).vars['NCCL_SOCKET_IFNAME']).toBe('fromhome');
  });
  it('no quote removal, no trimming: quotes are kept and reported', () => {
    const e = effectiveEnv(input({}, { '/etc/nccl.conf': 'NCCL_SOCKET_IFNAME="eth0"\nNCCL_IB_HCA=mlx5_0 \n' }), p('2.28.3'));
    expect(e.vars['NCCL_SOCKET_IFNAME']).toBe('"eth0"');
    expect(e.vars['NCCL_IB_HCA']).toBe('mlx5_0 ');
    expect(e.notes.map((n) => n.kind)).toEqual(['quoted', 'trailing-space']);
  });
  it('split at the first =', () => {
    const e = effectiveEnv(input({}, { '/etc/nccl.conf': 'NCCL_COMM_ID=a=b:1\n' }), p('2.28.3'));
    expect(e.vars['NCCL_COMM_ID']).toBe('a=b:1');
  });
  it("'#' lines are comments only from 2.26.2; before they define a harmless variable", () => {
    const files = { '/etc/nccl.conf': '#NCCL_SOCKET_IFNAME=eth9\n' };
    expect(effectiveEnv(input({}, files), p('2.26.2')).vars['#NCCL_SOCKET_IFNAME']).toBeUndefined();
    expect(effectiveEnv(input({}, files), p('2.25.1')).vars['#NCCL_SOCKET_IFNAME']).toBe('eth9');
    expect(effectiveEnv(input({}, files), p('2.25.1')).vars['NCCL_SOCKET_IFNAME']).toBeUndefined();
  });
  it('CRLF tolerated from 2.30.3; before, the CR stays in the value', () => {
    const files = { '/etc/nccl.conf': 'NCCL_SOCKET_IFNAME=eth0\r\n' };
    expect(effectiveEnv(input({}, files), p('2.30.3')).vars['NCCL_SOCKET_IFNAME']).toBe('eth0');
    const old = effectiveEnv(input({}, files), p('2.28.3'));
    expect(old.vars['NCCL_SOCKET_IFNAME']).toBe('eth0\r');
    expect(old.notes[0]!.kind).toBe('carriage-return');
  });
  it('home: passwd entry before 2.30.3, $HOME from 2.30.3', () => {
    const i: EnvInput = {
      process: {},
      confFiles: [
        { path: '/pw/.nccl.conf', role: 'home-passwd', content: 'NCCL_SOCKET_IFNAME=pw\n', error: null },
        { path: '/envhome/.nccl.conf', role: 'home-env', content: 'NCCL_SOCKET_IFNAME=envhome\n', error: null },
      ],
      home: { passwd: '/pw', env: '/envhome' },
    };
    expect(effectiveEnv(i, p('2.30.2')).vars['NCCL_SOCKET_IFNAME']).toBe('pw');
    expect(effectiveEnv(i, p('2.30.3')).vars['NCCL_SOCKET_IFNAME']).toBe('envhome');
  });
});
