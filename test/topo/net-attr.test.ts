// topo.cc ncclTopoAddNic (TopoProfile.netAttr): from 2.29.7 a <net> whose `net` attribute is 0 (a GIN- or
// RMA-only device) is no network device; before, every <net> with a `dev` is one. The A100 host of
// NVIDIA/nccl issue #2397 (test/topo/corpus/nccl-issue2397.json) with its second port marked net="0":
// NCCL's own code (the oracle, docs/topo-oracle.md) gave NETs mlx5_0 and mlx5_1 at 2.23.4 and 2.27.7,
// mlx5_0 alone at 2.30.7, in a two-node job.
import { describe, expect, it } from 'vitest';
import { runEngine } from '../../src/model/topo/engine-run.js';
import { parseXml } from '../../src/model/topo/xml-read.js';
import { parseVersion, topoProfileFor } from '../../src/model/nccl/versions.js';
import { corpusText } from './oracle-compare.js';

const text = corpusText('nccl-issue2397');
const ginOnly = text.replace(/(name="mlx5_1"[^>]*?) net="1"/, '$1 net="0"');
const nets = (xml: string, v: string) => runEngine({ system: parseXml(xml, 't.xml'), nodes: 2, vars: {}, profile: topoProfileFor(parseVersion(v)), search: false }).nets.map((n) => n.name);

describe('a <net> with net="0"', () => {
  it('the edit marks the second port only', () => {
    expect(ginOnly).not.toBe(text);
    expect(ginOnly.match(/net="0"/g)).toHaveLength(1);
  });
  it('2.29.6: still a network device (the attribute is not read)', () => {
    expect(nets(ginOnly, '2.29.6')).toEqual(['mlx5_0', 'mlx5_1']);
  });
  it('2.29.7: not a network device; net="1" and no attribute are', () => {
    expect(nets(ginOnly, '2.29.7')).toEqual(['mlx5_0']);
    expect(nets(text, '2.29.7')).toEqual(['mlx5_0', 'mlx5_1']);
    expect(nets(text.replace(/ net="1"/g, ''), '2.30.7')).toEqual(['mlx5_0', 'mlx5_1']);
  });
});
