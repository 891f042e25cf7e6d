// Each search.cc release difference (TopoProfile.search; docs/nccl/topology.md §4) that the recorded
// answers exercise, on a case that proves it: ncclx agrees with NCCL's own code at the tag, and no
// longer does with that one flag set as on the other side of its boundary. (Slow: whole 8-GPU searches.)
import { describe, expect, it } from 'vitest';
import { parseXml } from '../../src/model/topo/xml-read.js';
import { runEngine } from '../../src/model/topo/engine-run.js';
import { parseVersion, topoProfileFor, type TopoProfile } from '../../src/model/nccl/versions.js';
import { compareCase, corpusText, oracleFiles, type Tally } from './oracle-compare.js';

type Rule = keyof TopoProfile['search'];

/** How many fields of the recorded case the engine gets wrong with `profile`. */
function wrongFields(tag: string, id: string, env: Record<string, string>, profile: TopoProfile): number {
  const rec = oracleFiles(tag).find((f) => f.id === id)!.answers.find((a) => a.case.nodes === 2 && JSON.stringify(a.case.env) === JSON.stringify(env))!;
  const t: Tally = new Map();
  compareCase(t, id, rec, runEngine({ system: parseXml(corpusText(id), id), nodes: 2, vars: env, profile }), tag);
  return [...t.values()].reduce((n, v) => n + v.total - v.agree, 0);
}

describe('search.cc release differences, proved on NCCL\'s recorded answers', () => {
  it.each([
    // flag, the tag recorded, the release on the other side of its boundary, topology, environment
    ['globalTimeout', '2.18.5', '2.19.1', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    ['nvlsCompareBw', '2.18.5', '2.19.1', 'oci-h100-k8s', {}],
    ['netRotation', '2.18.5', '2.19.1', 'aws-p5.48xl', { NCCL_CROSS_NIC: '1' }],
    ['nvlsHeads', '2.18.5', '2.19.1', 'oci-h100-k8s', {}],
    ['crossNic', '2.18.5', '2.19.1', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    ['sm90Inter22', '2.18.5', '2.19.3', 'oci-h100', {}],
    ['nvsNeighbours', '2.18.5', '2.19.3', 'aws-p4d-24xl', {}],
    ['pciRefSkipsNvs', '2.18.5', '2.19.3', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    // The other side of the boundaries.
    ['nvlsCompareBw', '2.23.4', '2.19.0', 'azure-ndv5', {}],
    ['netRotation', '2.23.4', '2.19.0', 'azure-ndv4', { NCCL_CROSS_NIC: '1' }],
    ['sm90Inter22', '2.23.4', '2.19.2', 'oci-h100', {}],
    ['crossNic', '2.20.3', '2.20.2', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    ['crossNic', '2.23.4', '2.23.3', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    ['nvlsHeads', '2.22.3', '2.22.2', 'oci-h100-k8s', {}],
    ['pass2', '2.23.4', '2.19.0', 'azure-ndv5', {}],
    ['nvsNeighbours', '2.21.5', '2.21.4', 'aws-p4d-24xl', { NCCL_CROSS_NIC: '1' }],
    ['nvsNeighbours', '2.23.4', '2.19.2', 'aws-p4d-24xl', {}],
    ['pciRefSkipsNvs', '2.23.4', '2.19.2', 'azure-ndv5', {}],
  ] as [Rule, string, string, string, Record<string, string>][])('search.%s at %s (as at %s: wrong) on %s %o', (rule, tag, other, id, env) => {
    const profile = topoProfileFor(parseVersion(tag));
    const flipped = { ...profile, search: { ...profile.search, [rule]: topoProfileFor(parseVersion(other)).search[rule] } };
    expect(flipped.search[rule]).not.toEqual(profile.search[rule]);
    expect(wrongFields(tag, id, env, profile)).toBe(0);
    expect(wrongFields(tag, id, env, flipped)).toBeGreaterThan(0);
  }, 120_000);
});
