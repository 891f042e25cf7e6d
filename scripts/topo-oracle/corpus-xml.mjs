// The NCCL topology XML (NCCL_TOPO_FILE format) of a corpus transcription
// (test/topo/corpus/*.json, docs/fixtures.md "Published topologies"): the
// same tree, attributes and values as the published file, written back in
// NCCL's own layout. Used by the corpus test and by record.mjs.

const PCI_KEYS = ['vendor', 'device', 'subsystem_vendor', 'subsystem_device'];

function attrs(pairs) {
  return pairs.filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => ` ${k}="${v}"`).join('');
}

function pciLines(node, depth, out) {
  const pad = '  '.repeat(depth);
  const ids = node.id ? node.id.split(':').map((x) => (x === '-' ? undefined : x)) : [];
  const head = `${pad}<pci${attrs([
    ['busid', node.bus],
    ['class', node.cls],
    ...PCI_KEYS.map((k, i) => [k, ids[i]]),
    ['link_speed', node.link?.[0]],
    ['link_width', node.link?.[1]],
    ...Object.entries(node.x ?? {}),
  ])}`;
  const inner = [];
  if (node.gpu) {
    const { nvl, c2c, ...g } = node.gpu;
    const subs = [...(nvl ?? []).map(([t, c, cls]) => `<nvlink${attrs([['target', t], ['count', c], ['tclass', cls ?? '0x068000']])}/>`), ...(c2c ? [`<c2c${attrs([['bw', c2c[0]], ['count', c2c[1]]])}/>`] : [])];
    if (subs.length) inner.push(`${pad}  <gpu${attrs(Object.entries(g))}>`, ...subs.map((s) => `${pad}    ${s}`), `${pad}  </gpu>`);
    else inner.push(`${pad}  <gpu${attrs(Object.entries(g))}/>`);
  }
  for (const sub of node.sub ?? []) pciLines(sub, depth + 1, inner);
  for (const t of node.pcilink ?? []) inner.push(`${pad}  <pcilink${attrs([['target', t]])}/>`);
  if (node.nic) inner.push(`${pad}  <nic>`, ...node.nic.map((n) => `${pad}    <net${attrs(Object.entries(n))}/>`), `${pad}  </nic>`);
  if (!inner.length) out.push(`${head}/>`);
  else out.push(`${head}>`, ...inner, `${pad}</pci>`);
}

/** NCCL XML text for a corpus transcription. */
export function corpusXml(t) {
  const out = [`<system${attrs(Object.entries(t.system ?? { version: '1' }))}>`];
  for (const cpu of t.cpus) {
    out.push(`  <cpu${attrs(Object.entries(cpu.attrs))}>`);
    for (const p of cpu.pci ?? []) pciLines(p, 2, out);
    if (cpu.nic?.length) out.push('    <nic>', ...cpu.nic.map((n) => `      <net${attrs(Object.entries(n))}/>`), '    </nic>');
    out.push('  </cpu>');
  }
  out.push('</system>');
  return out.join('\n') + '\n';
}
