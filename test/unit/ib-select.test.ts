// Which ports NCCL's IB transport keeps, their order and merging (docs/nccl/ib.md; docs/nccl/net-plugins.md; docs/nccl/topology.md §3).
import { describe, expect, it } from 'vitest';
import { ibModel } from '../../src/model/nccl/ib-report.js';
import { busIdToInt, mergeLevelOf, parseNumbered, parseRateGbps, roceMtuFor } from '../../src/model/nccl/ib.js';
import { foldVariants } from '../../src/probe/rdma.js';
import type { RdmaDevice } from '../../src/model/snapshot/rdma-types.js';
import { link, type LinkSpec } from '../unit/helpers.js';
import { device, ENOENT, rdmaSnapshot } from '../rdma/helpers.js';

const LINKS: LinkSpec[] = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24']), link('ib0', ['192.168.1.5/24'])];

function run(devices: RdmaDevice[], version: string, env: Record<string, string> = {}, links = LINKS, rdma = {}) {
  return ibModel(rdmaSnapshot(links, devices, { env, rdma }), { ncclVersion: version });
}
const usedNames = (m: ReturnType<typeof run>) => m.selection.devices.map((d) => `${d.dev}:${d.port}`);
const logOf = (m: ReturnType<typeof run>) => m.selection.transport.log.map((l) => `${l.level} ${l.text}`);

describe('sysfs values', () => {
  it('numbered states, rates with and without a generation name', () => {
    expect(parseNumbered('4: ACTIVE')).toEqual({ num: 4, name: 'ACTIVE' });
    expect(parseNumbered('5: LinkUp')).toEqual({ num: 5, name: 'LinkUp' });
    expect(parseNumbered(ENOENT)).toEqual({ num: null, name: null });
    expect(parseRateGbps('400 Gb/sec (4X NDR)')).toBe(400);
    expect(parseRateGbps('10 Gb/sec (4X)')).toBe(10);
    expect(parseRateGbps('2.5 Gb/sec (1X SDR)')).toBe(2.5);
  });
  it('the RoCE MTU a netdev MTU allows (96 bytes of RoCE headers)', () => {
    expect(roceMtuFor(1500)).toBe(1024);
    expect(roceMtuFor(4191)).toBe(2048);
    expect(roceMtuFor(4192)).toBe(4096);
    expect(roceMtuFor(9000)).toBe(4096);
    expect(roceMtuFor(300)).toBeNull();
  });
  it('busIdToInt64 reads hex digits, skipping . and :, up to the first other character', () => {
    expect(busIdToInt('0000:17:00.1')).toBe(0x17001n);
    expect(busIdToInt('0002:01:00.0')).toBe(0x201000n);
    expect(busIdToInt('device')).toBe(0xden);
  });
});

describe('PCI path folding (§2.3)', () => {
  it('function digit to 0; with NCCL_IB_MERGE_VFS=1 both device digits to 00; ≤ 2.17 only the low one', () => {
    expect(foldVariants('/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.1')).toEqual({
      mergeVfs: '/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0',
      functionOnly: '/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0',
      lowDigit: '/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0',
    });
    expect(foldVariants('/sys/devices/pci0000:00/0000:00:15.3')).toEqual({
      mergeVfs: '/sys/devices/pci0000:00/0000:00:00.0',
      functionOnly: '/sys/devices/pci0000:00/0000:00:15.0',
      lowDigit: '/sys/devices/pci0000:00/0000:00:10.0',
    });
  });
  it('a plain `device` directory folds to …/de00c0', () => {
    expect(foldVariants('/sys/class/infiniband/mlx5_0/device').mergeVfs).toBe('/sys/class/infiniband/mlx5_0/de00c0');
  });
});

describe('ports NCCL keeps', () => {
  const devs = () => [
    device({ name: 'mlx5_0', ports: [{ ll: 'InfiniBand' }] }),
    device({ name: 'mlx5_1', ports: [{ ll: 'InfiniBand', state: '1: DOWN', phys: '3: Disabled' }] }),
    device({ name: 'mlx5_2', ports: [{ ll: 'InfiniBand', state: '2: INIT', phys: '5: LinkUp' }] }),
    device({ name: 'efa_0', ports: [{ ll: 'Unknown' }] }),
    device({ name: 'mlx5_3', ports: [{ ll: 'InfiniBand' }, { ll: 'InfiniBand' }] }),
  ];
  it('ACTIVE ports with an InfiniBand or Ethernet link layer; others skipped silently with the reason', () => {
    const m = run(devs(), '2.28.3');
    expect(usedNames(m)).toEqual(['mlx5_0:1', 'mlx5_3:1', 'mlx5_3:2']);
    const r = (d: string) => m.selection.ports.find((p) => p.dev === d)!;
    expect(r('mlx5_1').reason).toMatch(/port state 1: DOWN: NCCL keeps only ACTIVE ports/);
    expect(r('mlx5_2').reason).toMatch(/2: INIT/);
    expect(r('efa_0').reason).toMatch(/link layer 'Unknown'/);
    expect(logOf(m)).toEqual(['INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_3:2/IB ; OOB ib0:192.168.1.5<0>']);
  });
  it('a missing state or link layer file is unknown, never DOWN', () => {
    const m = run([device({ name: 'mlx5_0', ports: [{ state: ENOENT }] }), device({ name: 'mlx5_1', ports: [{ ll: ENOENT }] })], '2.28.3');
    expect(m.selection.ports.map((p) => p.kept)).toEqual([null, null]);
    expect(m.selection.ports.map((p) => p.usedByNccl)).toEqual([null, null]);
    expect(m.selection.ports[0]!.reason).toMatch(/state unknown \(ENOENT\)/);
    expect(m.selection.transport.certain).toBe(false);
    expect(m.selection.transport).toMatchObject({ used: null, network: 'unknown' });
    // One known ACTIVE port settles it.
    expect(run([device({ name: 'mlx5_0', ports: [{ state: ENOENT }] }), device({ name: 'mlx5_1' })], '2.28.3').selection.transport).toMatchObject({ used: true, network: 'IB' });
  });
  it('NCCL_IB_DISABLE is an integer: 1 disables, "true" is 0 and does not', () => {
    expect(run(devs(), '2.28.3', { NCCL_IB_DISABLE: '1' }).selection.transport).toMatchObject({ status: 'disabled', used: false, network: 'Socket' });
    expect(run(devs(), '2.28.3', { NCCL_IB_DISABLE: 'true' }).selection.transport.status).toBe('ok');
    expect(run(devs(), '2.28.3', { NCCL_IB_DISABLE: '0x1' }).selection.transport.status).toBe('disabled');
  });
  it('no IP interface for the OOB socket: the IB transport fails', () => {
    // lo is NCCL's last resort, so only a node without any address gets here.
    expect(run(devs(), '2.28.3', {}, [link('lo', ['127.0.0.1/8']), link('eth0', [])]).report.transport.oob.interface).toBe('lo');
    const m = run(devs(), '2.28.3', {}, [link('lo', []), link('eth0', [])]);
    expect(m.selection.transport.status).toBe('no-oob');
    expect(logOf(m)).toEqual(['WARN NET/IB : No IP interface found.']);
    expect(m.selection.ports[0]!.usedByNccl).toBe(false);
    // NCCL_SOCKET_IFNAME applies to the OOB too.
    expect(run(devs(), '2.28.3', { NCCL_SOCKET_IFNAME: 'nomatch' }).selection.transport.status).toBe('no-oob');
  });
  it('nothing kept: "No device found." and a silent fall back to sockets, unless NCCL_NET=IB', () => {
    const m = run(devs(), '2.28.3', { NCCL_IB_HCA: 'mlx5_9' });
    expect(m.selection.transport).toMatchObject({ status: 'no-device', used: false, network: 'Socket' });
    expect(logOf(m)).toEqual(['INFO NCCL_IB_HCA set to mlx5_9', 'INFO NET/IB : No device found.']);
    expect(run(devs(), '2.28.3', { NCCL_IB_HCA: 'mlx5_9', NCCL_NET: 'IB' }).selection.transport.network).toBe('none');
    expect(run(devs(), '2.26.2', { NCCL_IB_HCA: 'mlx5_9', NCCL_NET: 'ib' }).selection.transport.why).toMatch(/"Error: network ib not found\."/);
    expect(run(devs(), '2.27.3', { NCCL_IB_HCA: 'mlx5_9', NCCL_NET: 'IB' }).selection.transport.why).toMatch(/Failed to initialize any NET plugin/);
  });
  it('NCCL_NET=Socket: ≤ 2.28 still initialises IB (its line appears), ≥ 2.29.2 does not', () => {
    const old = run(devs(), '2.28.3', { NCCL_NET: 'Socket' });
    expect(old.selection.transport).toMatchObject({ status: 'ok', initialised: true, used: false, network: 'Socket' });
    expect(logOf(old)[0]).toMatch(/^INFO NET\/IB : Using/);
    expect(old.selection.ports[0]!.usedByNccl).toBe(false);
    expect(run(devs(), '2.29.2', { NCCL_NET: 'Socket' }).selection.transport).toMatchObject({ status: 'not-requested', initialised: false });
  });
  it('a device NCCL cannot open (no /dev/infiniband node) is skipped', () => {
    const m = run([device({ name: 'mlx5_0', uverbs: 'uverbs0' }), device({ name: 'mlx5_1', uverbs: 'uverbs1' })], '2.28.3', {}, LINKS, { devInfiniband: { known: true, present: true, entries: ['uverbs0'] } });
    expect(usedNames(m)).toEqual(['mlx5_0:1']);
    expect(m.selection.ports[1]!.reason).toMatch(/uverbs1 is missing/);
    const none = run([device({ name: 'mlx5_0' })], '2.28.3', {}, LINKS, { devInfiniband: { known: true, present: false, entries: [] } });
    expect(none.selection.transport.status).toBe('no-device');
    const unknown = run([device({ name: 'mlx5_0' })], '2.28.3', {}, LINKS, { devInfiniband: { known: false, present: false, entries: [] } });
    expect(usedNames(unknown)).toEqual(['mlx5_0:1']);
  });
  it('MAX_IB_DEVS: 32 from 2.18.5, 16 before; later devices are ignored silently', () => {
    const many = Array.from({ length: 40 }, (_, i) => device({ name: `mlx5_${i}`, bdf: `0000:${(0x10 + i).toString(16)}:00.0` }));
    expect(run(many, '2.18.5').selection.devices).toHaveLength(32);
    const old = run(many, '2.18.3');
    expect(old.selection.devices).toHaveLength(16);
    expect(old.selection.ports[16]!.reason).toMatch(/MAX_IB_DEVS=16/);
  });
  it('rail and plane from NCCL_IB_HCA appear in the log line (≥ 2.30.7)', () => {
    const m = run([device({ name: 'mlx5_0' }), device({ name: 'mlx5_1' })], '2.30.7', { NCCL_IB_HCA: 'mlx5_0:1:3:1,mlx5_1::' });
    expect(logOf(m)).toEqual(['INFO NCCL_IB_HCA set to mlx5_0:1:3:1,mlx5_1::', 'INFO NET/IB : Using [0]mlx5_0:1:3:1/RoCE [1]mlx5_1:1/RoCE ; OOB ib0:192.168.1.5<0>']);
  });
});

describe('device order', () => {
  const devs = () => [
    device({ name: 'mlx5_0', bdf: '0000:9a:00.0' }),
    device({ name: 'mlx5_1', bdf: null }),
    device({ name: 'mlx5_2', bdf: '0000:18:00.0' }),
    device({ name: 'mlx5_10', bdf: '0000:29:00.0' }),
  ];
  it('before 2.29.7: libibverbs order (device-name order here)', () => {
    expect(usedNames(run(devs(), '2.29.2'))).toEqual(['mlx5_0:1', 'mlx5_1:1', 'mlx5_2:1', 'mlx5_10:1']);
  });
  it('≥ 2.29.7: by PCI BDF of the device realpath, devices without a path last', () => {
    const m = run(devs(), '2.29.7');
    expect(usedNames(m)).toEqual(['mlx5_2:1', 'mlx5_10:1', 'mlx5_0:1', 'mlx5_1:1']);
    expect(m.selection.ports.find((p) => p.dev === 'mlx5_2')!.ncclIndex).toBe(0);
  });
  it('NCCL_IB_DEVICE_PCI_ORDER=0 keeps libibverbs order', () => {
    expect(usedNames(run(devs(), '2.30.7', { NCCL_IB_DEVICE_PCI_ORDER: '0' }))).toEqual(['mlx5_0:1', 'mlx5_1:1', 'mlx5_2:1', 'mlx5_10:1']);
  });
});

describe('merging ports that share a NIC', () => {
  const dual = () => [
    device({ name: 'mlx5_0', bdf: '0000:17:00.0', sysImageGuid: 'g17' }),
    device({ name: 'mlx5_1', bdf: '0000:17:00.1', sysImageGuid: 'g17' }),
    device({ name: 'mlx5_2', bdf: '0000:31:00.0', sysImageGuid: 'g31' }),
    device({ name: 'mlx5_3', bdf: '0000:31:00.1', sysImageGuid: 'g31' }),
  ];
  it('< 2.20.3: no merging', () => {
    const m = run(dual(), '2.19.3');
    expect(m.selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3']);
  });
  it('2.20.3–2.23.x: the IB transport merges same path + sys_image_guid + link layer, and logs the merged form', () => {
    const m = run(dual(), '2.21.5');
    expect(m.selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0+mlx5_1', 'mlx5_2+mlx5_3']);
    expect(logOf(m)[0]).toBe('INFO NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE} [1]={[2] mlx5_2:1/RoCE, [3] mlx5_3:1/RoCE} ; OOB ib0:192.168.1.5<0>');
  });
  it('2.20.3–2.23.x: a mix of single- and multi-port NICs force-disables merging', () => {
    const m = run([...dual(), device({ name: 'mlx5_4', bdf: '0000:b1:00.0', sysImageGuid: 'gb1' })], '2.23.4');
    expect(m.selection.netDevices).toHaveLength(5);
    expect(m.selection.merge.notes).toContain('Detected a mix of single and multiple-port NICs. Force-disabling NCCL_IB_MERGE_NICS');
  });
  it('≥ 2.27.3: the core fuses ports of one NIC into virtual NICs numbered after the physical devices', () => {
    const m = run([...dual(), device({ name: 'mlx5_4', bdf: '0000:b1:00.0' })], '2.27.3');
    expect(m.selection.netDevices.map((n) => `${n.index}:${n.name}`)).toEqual(['4:mlx5_4', '5:mlx5_0+mlx5_1', '6:mlx5_2+mlx5_3']);
    expect(m.selection.ports.find((p) => p.dev === 'mlx5_1')!.netDevice).toBe(5);
  });
  it('2.24.3–2.26.x: every AutoMerge group is renumbered after the physical devices; a fused vNIC lands in a nested <nic> NCCL never reads, so its ports stay as they were', () => {
    // topo.cc ncclTopoPopulateNics/ncclTopoFillNet at v2.24.3: a one-device group reuses its <net> (same name) with the new
    // dev index; mlx5_0+mlx5_1 is put under a <nic> inside the ports' <nic>, and ncclTopoAddNic reads only <net> children.
    const m = run([...dual(), device({ name: 'mlx5_4', bdf: '0000:b1:00.0' })], '2.24.3');
    expect(m.selection.netDevices.map((n) => `${n.index}:${n.name}`)).toEqual(['0:mlx5_0', '1:mlx5_1', '2:mlx5_2', '3:mlx5_3', '7:mlx5_4']);
    expect(m.selection.ports.find((p) => p.dev === 'mlx5_1')!.netDevice).toBe(1);
    expect(m.selection.ports.find((p) => p.dev === 'mlx5_4')!.netDevice).toBe(7);
  });
  it('NCCL_NET_MERGE_LEVEL=LOC (or an unknown value, with NCCL\'s INFO line) stops fusion', () => {
    expect(run(dual(), '2.28.3', { NCCL_NET_MERGE_LEVEL: 'LOC' }).selection.netDevices).toHaveLength(4);
    expect(mergeLevelOf('bogus')).toEqual({ level: 'LOC', log: "KV Convert to int : could not find value of 'bogus' in dictionary, falling back to 0" });
    expect(mergeLevelOf('port')).toEqual({ level: 'PORT', log: null });
    expect(run(dual(), '2.28.3', { NCCL_NET_MERGE_LEVEL: 'bogus' }).selection.netDevices).toHaveLength(4);
  });
  it('NCCL_IB_MERGE_NICS=0 refuses multi-device vNICs: fatal in 2.24.3–2.25.x; from 2.26.2 placed apart (INFO from 2.27.3, WARN before)', () => {
    const a = run(dual(), '2.27.3', { NCCL_IB_MERGE_NICS: '0' });
    expect(a.selection.merge.refusals[0]).toMatchObject({ cause: 'merge-nics-0', level: 'INFO', log: 'NET/IB : Skipping makeVDevice, NCCL_IB_MERGE_NICS=0', fatal: false });
    expect(a.selection.netDevices).toHaveLength(4);
    expect(run(dual(), '2.26.2', { NCCL_IB_MERGE_NICS: '0' }).selection.merge.refusals[0]).toMatchObject({ level: 'WARN', fatal: false });
    // topo.cc v2.25.1: ncclTopoMakeVnic returns makeVDevice's ncclInvalidUsage and ncclTopoAutoMerge's NCCLCHECKGOTO ends the init.
    const old = run(dual(), '2.25.1', { NCCL_IB_MERGE_NICS: '0' });
    expect(old.selection.merge.refusals[0]).toMatchObject({ level: 'WARN', fatal: true });
    expect(old.selection.transport).toMatchObject({ status: 'merge-refused', used: false });
    expect(old.report.findings.find((f) => f.id === 'IB-028')).toMatchObject({ severity: 'error', remediation: { env: { NCCL_IB_MERGE_NICS: null } } });
  });
  it('InfiniBand and RoCE on one NIC: before 2.26.2 the refusal ends the init; from 2.26.2 NCCL places them apart (quietly from 2.28.7)', () => {
    const vpi = [device({ name: 'mlx5_0', bdf: '0000:17:00.0', ports: [{ ll: 'InfiniBand' }] }), device({ name: 'mlx5_1', bdf: '0000:17:00.1' })];
    const old = run(vpi, '2.25.1');
    expect(old.selection.merge.refusals[0]).toMatchObject({ fatal: true, level: 'WARN', log: 'NET/IB : Trying to merge multiple devices together with different link_layer properties mlx5_0 -> 1, mlx5_1 -> 2. Try only selecting NICs with one type of link using NCCL_IB_HCA' });
    expect(old.selection.ports.map((p) => p.usedByNccl)).toEqual([false, false]);
    expect(old.selection.transport).toMatchObject({ status: 'merge-refused', used: false, network: 'none' });
    expect(old.report.findings.find((f) => f.id === 'IB-015')!.severity).toBe('error');
    // ncclTopoAutoMerge from 2.26.2: "Marking physical devices as unplaced, increasing distance and restarting search".
    const m = run(vpi, '2.28.3');
    expect(m.selection.merge.refusals[0]).toMatchObject({ fatal: false, level: 'WARN', log: 'NET/IB : Attempted to merge incompatible devices: [0]mlx5_0:1/IB and [1]mlx5_1:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA' });
    expect(m.selection.transport.status).not.toBe('merge-refused');
    expect(m.selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0', 'mlx5_1']);
    // Kept together, an IB port cannot reach a RoCE port: IB-015's warning, not an init failure.
    expect(m.report.findings.filter((f) => f.id === 'IB-015').map((f) => f.severity)).toEqual(['warn']);
    expect(run(vpi, '2.30.7').selection.merge.refusals[0]!.level).toBe('INFO');
    // NVIDIA/nccl v2.28.7-1 src/graph/topo.cc ncclTopoMakeVnic: makeVDevice runs under NOWARN (WARN printed as INFO); 2.28.3 did not.
    expect(run(vpi, '2.28.7').selection.merge.refusals[0]!.level).toBe('INFO');
  });
  it('from 2.26.2 a refused group is placed apart and the scan restarts: an IB port and two RoCE ports of one NIC leave the RoCE pair fused', () => {
    // ncclTopoAutoMerge: root 0 takes 1 and 2, the transport refuses (mixed), 0 is set DIS from 1 and 2, the scan restarts at
    // index 1 (i = 0, then i++): 1 takes 2 — both RoCE — and they fuse; 0, never revisited, stays a physical NET.
    const three = [device({ name: 'mlx5_0', bdf: '0000:17:00.0', ports: [{ ll: 'InfiniBand' }] }), device({ name: 'mlx5_1', bdf: '0000:17:00.1' }), device({ name: 'mlx5_2', bdf: '0000:17:00.2' })];
    const m = run(three, '2.28.3');
    expect(m.selection.merge.refusals.map((r) => [r.cause, r.members, r.fatal])).toEqual([['link-layers', [0, 1, 2], false]]);
    expect(m.selection.netDevices.map((n) => `${n.index}:${n.name}`)).toEqual(['0:mlx5_0', '3:mlx5_1+mlx5_2']);
    // Before 2.26.2 the same refusal ends the init.
    expect(run(three, '2.25.1').selection.transport.status).toBe('merge-refused');
    // 2.26.x renumber every group AutoMerge made — device 0 is in none, so it stays NET 0; the vNIC (3) is nested, never read.
    expect(run(three, '2.26.2').selection.netDevices.map((n) => `${n.index}:${n.name}`)).toEqual(['0:mlx5_0', '1:mlx5_1', '2:mlx5_2']);
    expect(run(three, '2.26.2').selection.merge.unplaced).toEqual([0]);
  });
  it('NCCL_NET_MERGE_POLICY=RAIL (2.30.7): a port joins a vNIC only when the root has an NCCL_IB_HCA rail and it is the same', () => {
    const names = (v: string, env: Record<string, string>) => run(dual(), v, env).selection.netDevices.map((n) => n.name);
    expect(names('2.30.7', {})).toEqual(['mlx5_0+mlx5_1', 'mlx5_2+mlx5_3']);
    // No rail given: nothing joins (topo.cc: propsList[i].railId != NCCL_NET_ID_UNDEF).
    expect(names('2.30.7', { NCCL_NET_MERGE_POLICY: 'rail' })).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3']);
    // prefix:port:rail — mlx5_0 and mlx5_1 on rail 0 fuse; mlx5_2 (rail 1) and mlx5_3 (rail 2) stay apart.
    expect(names('2.30.7', { NCCL_NET_MERGE_POLICY: 'RAIL', NCCL_IB_HCA: '=mlx5_0:1:0,mlx5_1:1:0,mlx5_2:1:1,mlx5_3:1:2' })).toEqual(['mlx5_2', 'mlx5_3', 'mlx5_0+mlx5_1']);
    // An unknown value WARNs and is ALL; before 2.30.7 the variable does not exist.
    const bogus = run(dual(), '2.30.7', { NCCL_NET_MERGE_POLICY: 'rails' });
    expect(bogus.selection.netDevices).toHaveLength(2);
    expect(bogus.selection.merge.notes).toContain(`WARN "NCCL_NET_MERGE_POLICY: unknown value 'rails', defaulting to ALL"`);
    expect(names('2.30.4', { NCCL_NET_MERGE_POLICY: 'RAIL' })).toEqual(['mlx5_0+mlx5_1', 'mlx5_2+mlx5_3']);
  });
  it('NICs that are not PCI devices all land on the first CPU\'s NIC node and are fused (≥ 2.24.3), but the vNIC goes in a <nic> nested in theirs, which the topology never reads: from 2.27.3 no NET device is left for them (IB-038)', () => {
    const m = run([device({ name: 'mlx5_0', bdf: 'dir' }), device({ name: 'mlx5_1', bdf: 'dir' })], '2.28.3');
    // ncclFindFirstPciParent finds no <pci> above the first CPU's <nic>, so ncclTopoFillNet nests the vNIC's <nic> in it.
    const g = m.selection.merge.groups.find((x) => x.merged)!;
    expect(g.members).toEqual([0, 1]);
    expect(g.home?.kind).toBe('unread');
    expect(m.selection.netDevices).toEqual([]);
    expect(m.report.findings.find((f) => f.id === 'IB-038')?.message).toMatch(/mlx5_0\+mlx5_1 .*nested in the members' <nic>/);
    expect(m.report.findings.find((f) => f.id === 'IB-038')?.remediation?.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
    expect(m.selection.devices[0]!.pciPath).toBe('/sys/class/infiniband/mlx5_0/de00c0');
  });
  it('NCCL_NET_MERGE_LEVEL=SYS over NICs of two CPUs: refused from 2.30.7, initialisation fails (IB-037, unset the level); under <system>, never read, before (IB-038)', () => {
    const two = () => {
      const a = device({ name: 'mlx5_0' });
      const b = device({ name: 'mlx5_1' });
      (b.pci as { numaNode: string }).numaNode = '1';
      return [a, b];
    };
    const now = run(two(), '2.30.7', { NCCL_NET_MERGE_LEVEL: 'SYS' });
    expect(now.selection.transport.status).toBe('merge-refused');
    expect(logOf(now)).toContain('WARN Fusing NET devices from different NUMA domains is not supported.');
    const e = now.report.findings.find((f) => f.id === 'IB-037')!;
    expect(e.severity).toBe('error');
    expect(e.remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: null });
    const before = run(two(), '2.30.4', { NCCL_NET_MERGE_LEVEL: 'SYS' });
    expect(before.selection.transport.status).toBe('ok');
    expect(before.selection.netDevices).toEqual([]);
    expect(before.report.findings.find((f) => f.id === 'IB-038')?.message).toMatch(/under <system>/);
    // PHB keeps them apart: nothing fused, nothing refused.
    expect(run(two(), '2.30.7', { NCCL_NET_MERGE_LEVEL: 'PHB' }).selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0', 'mlx5_1']);
  });
  it('NCCL_NET_FORCE_MERGE (ncclTopoForceMerge): its groups are fused first, whatever the level, and numbered before AutoMerge\'s', () => {
    const four = () => [0, 1, 2, 3].map((i) => device({ name: `mlx5_${i}` }));
    const m = run(four(), '2.28.3', { NCCL_NET_FORCE_MERGE: 'mlx5_0,mlx5_2' });
    expect(m.selection.netDevices.map((n) => `${n.index} ${n.name}`)).toEqual(['1 mlx5_1', '3 mlx5_3', '4 mlx5_0+mlx5_2']);
    expect(m.selection.merge.notes).toContain('INFO "TOPO/NET : Force-fusing NICs using NCCL_NET_FORCE_MERGE=mlx5_0,mlx5_2"');
    // Two cards fused by the variable, not by NCCL_IB_MERGE_VFS folding (no IB-032); keeping them apart means unsetting it too.
    expect(m.report.findings.some((f) => f.id === 'IB-032')).toBe(false);
    const info = m.report.findings.find((f) => f.id === 'IB-028' && f.message.includes('(NCCL_NET_FORCE_MERGE)'))!;
    expect(info.message).toMatch(/^Ports are fused into one NCCL network device/);
    expect(info.remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC', NCCL_NET_FORCE_MERGE: null });
    // The forced vNIC is made first: NET 4; the PHB group of the rest follows: NET 5.
    const both = run(four(), '2.28.3', { NCCL_NET_FORCE_MERGE: 'mlx5_2,mlx5_3', NCCL_NET_MERGE_LEVEL: 'PHB' });
    expect(both.selection.netDevices.map((n) => `${n.index} ${n.name}`)).toEqual(['4 mlx5_2+mlx5_3', '5 mlx5_0+mlx5_1']);
    // Fused at PHB across cards: not NCCL_IB_MERGE_VFS's doing (no IB-032), and IB-028 names where they meet.
    expect(both.report.findings.some((f) => f.id === 'IB-032')).toBe(false);
    expect(both.report.findings.find((f) => f.id === 'IB-028' && f.message.startsWith('Ports are fused'))!.message).toContain('mlx5_0+mlx5_1 (CPU 0)');
    // Before 2.24.3 NCCL does not read it.
    expect(run(four(), '2.23.4', { NCCL_NET_FORCE_MERGE: 'mlx5_0,mlx5_2' }).selection.netDevices).toHaveLength(4);
  });
  it('NCCL_NET_FORCE_MERGE that matches other than it names fails the init; a group that parses to nothing hangs it (IB-039)', () => {
    const two = () => [device({ name: 'mlx5_0' }), device({ name: 'mlx5_1' })];
    const miss = run(two(), '2.28.3', { NCCL_NET_FORCE_MERGE: 'mlx5_0;mlx5_9' });
    expect(miss.selection.transport.status).toBe('merge-refused');
    expect(logOf(miss)).toContain('WARN TOPO/NET : Only matched 0 devices, 1 requested from mlx5_9');
    // Names match exactly: a prefix matches nothing.
    expect(logOf(run(two(), '2.28.3', { NCCL_NET_FORCE_MERGE: 'mlx5' }))).toContain('WARN TOPO/NET : Only matched 0 devices, 1 requested from mlx5');
    const f = miss.report.findings.find((x) => x.id === 'IB-039')!;
    expect(f.severity).toBe('error');
    expect(f.remediation.env).toEqual({ NCCL_NET_FORCE_MERGE: null });
    const hang = run(two(), '2.28.3', { NCCL_NET_FORCE_MERGE: 'mlx5_0,mlx5_1;:1' });
    expect(hang.selection.transport.status).toBe('merge-refused');
    expect(hang.report.findings.find((x) => x.id === 'IB-039')!.message).toMatch(/the group ':1' parses to no device name.*hangs/);
    // NCCL logs its copy of the variable, which strtok has cut after the first group (leading ';'s stay).
    expect(run(two(), '2.28.3', { NCCL_NET_FORCE_MERGE: ';mlx5_0,mlx5_1;:1' }).selection.merge.notes.join(' ')).toContain("Invalid NCCL_NET_FORCE_MERGE specified ;mlx5_0,mlx5_1. Couldn't parse substring :1.");
    // Empty groups are skipped (strtok): fine.
    expect(run(two(), '2.28.3', { NCCL_NET_FORCE_MERGE: ';;mlx5_0,mlx5_1;' }).selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0+mlx5_1']);
  });
  it('VM layout: NCCL_IB_MERGE_VFS=1 folds different device numbers together; =0 keeps them apart', () => {
    const vm = [device({ name: 'mlx5_0', bdf: '0000:00:05.0' }), device({ name: 'mlx5_1', bdf: '0000:00:06.0' })];
    expect(run(vm, '2.28.3').selection.netDevices.map((n) => n.name)).toEqual(['mlx5_0+mlx5_1']);
    expect(run(vm, '2.28.3').report.findings.map((f) => f.id)).toContain('IB-032');
    expect(run(vm, '2.28.3', { NCCL_IB_MERGE_VFS: '0' }).selection.netDevices).toHaveLength(2);
  });
});
