// View 3: RDMA devices and ports, and the GID table of the selected port with
// the entry NCCL chooses highlighted and every other entry's verdict and reason.

import { Box, Text } from 'ink';
import type { IbModel, PortReport } from '../../model/nccl/ib-report.js';
import { gidText, parseGid, typeLabel } from '../../model/nccl/gid.js';
import { sysError, sysText } from '../../model/nccl/ib.js';
import type { RdmaPort } from '../../model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../model/snapshot/types.js';
import { useColor, useKeys, usePersisted } from '../screen.js';
import { clamp, Fill, fit, Line, moveIndex, position, Title, windowStart, wrap } from '../ui.js';
import { visible } from '../../report/display.js';

export interface PortRow {
  dev: string;
  port: PortReport;
  raw: RdmaPort | undefined;
}

export function portRows(ib: IbModel, snap: NodeSnapshot): PortRow[] {
  return ib.report.devices.flatMap((d) =>
    d.ports.map((p) => ({ dev: d.name, port: p, raw: snap.rdma?.devices.find((x) => x.name === d.name)?.ports.find((x) => x.port === p.port) })),
  );
}

export interface GidRow {
  /** "3" or "4–254" for a folded run. */
  label: string;
  first: number;
  last: number;
  address: string;
  type: string;
  verdict: string;
  reason: string;
  chosen: boolean;
  candidate: boolean;
}

/** The port's GID table in index order, runs of identical entries folded, with NCCL's verdict on each. */
export function gidRows(p: PortReport, raw: RdmaPort | undefined): GidRow[] {
  const outcome = p.gidSelection?.outcome;
  const chosen = outcome?.kind === 'index' ? outcome.index : null;
  const candidates = new Set(outcome?.kind === 'indeterminate' ? outcome.candidates : []);
  const trace = p.trace.filter((t) => t.stage === 'gid' && t.index !== undefined);
  const rows: GidRow[] = [];
  const entries = raw?.gids ?? [];
  const indexes = [...new Set([...entries.map((g) => g.index), ...trace.map((t) => t.index!)])].sort((a, b) => a - b);
  for (const i of indexes) {
    const g = entries.find((e) => e.index === i);
    const text = g ? sysText(g.gid) : null;
    const bytes = text ? parseGid(text) : null;
    const address = g ? (bytes ? gidText(bytes) : text ?? `(${sysError(g.gid) ?? 'unreadable'})`) : '(not captured)';
    const steps = trace.filter((t) => t.index === i && t.verdict !== 'chosen');
    const picked = trace.find((t) => t.index === i && t.verdict === 'chosen');
    const verdict = i === chosen ? 'chosen' : steps.length ? steps.map((s) => s.verdict).join(', ') : p.gidSelection ? 'not read' : '-';
    const reason = [...steps.map((s) => s.reason), ...(picked ? [picked.reason] : [])].join('; ') || (p.gidSelection ? 'NCCL does not look at this entry' : 'NCCL does not choose a GID on this port');
    rows.push({ label: String(i), first: i, last: i, address, type: g ? typeLabel(g.type, p.linkLayer) : '-', verdict, reason, chosen: i === chosen, candidate: candidates.has(i) });
  }
  // Fold runs of identical rows (hundreds of unset entries).
  const folded: GidRow[] = [];
  for (const r of rows) {
    const prev = folded[folded.length - 1];
    const same = prev && prev.last + 1 === r.first && !prev.chosen && !r.chosen && prev.address === r.address && prev.type === r.type && prev.verdict === r.verdict && prev.reason === r.reason;
    if (same) {
      prev.last = r.first;
      prev.label = `${prev.first}–${r.first}`;
    }
    else folded.push({ ...r });
  }
  return folded;
}

function gidCell(p: PortReport): string {
  const o = p.gidSelection?.outcome;
  if (!o) return '-';
  if (o.kind === 'index') return `GID ${o.index}`;
  if (o.kind === 'indeterminate') return `GID ?${o.candidates.join('|')}`;
  if (o.kind === 'failure') return 'GID FAIL';
  return 'LID';
}

const linkOf = (p: PortReport) => (p.linkLayer === 'InfiniBand' ? 'IB' : p.linkLayer === 'Ethernet' ? 'RoCE' : p.linkLayer ?? '?');

export function RdmaView({ ib, snapshot, height, width, active, banner }: { ib: IbModel; snapshot: NodeSnapshot; height: number; width: number; active: boolean; banner: string | null }) {
  const c = useColor();
  const [sel, setSel] = usePersisted('rdma.port', 0);
  const [gsel, setGsel] = usePersisted('rdma.gid', 0);
  const [focus, setFocus] = usePersisted<'ports' | 'gids'>('rdma.focus', 'ports');
  const ports = portRows(ib, snapshot);
  const selected = clamp(sel, ports.length);
  const cur = ports[selected];
  const gids = cur ? gidRows(cur.port, cur.raw) : [];
  const chosenRow = Math.max(0, gids.findIndex((g) => g.chosen));
  const gSelected = focus === 'gids' ? clamp(gsel, gids.length) : chosenRow;
  const portHeight = Math.min(ports.length, focus === 'ports' ? 6 : 3);
  const fixed = (banner ? 1 : 0) + 1 + 1 + portHeight + 2 + 2; // banner, transport, port head, ports, GID title + head, detail
  const gidHeight = Math.max(1, height - fixed);

  useKeys((input, key) => {
    if (key.return || input === ' ') {
      setFocus(focus === 'ports' ? 'gids' : 'ports');
      setGsel(chosenRow);
      return;
    }
    if (key.escape && focus === 'gids') {
      setFocus('ports');
      return;
    }
    if (focus === 'ports') {
      const next = moveIndex(input, key, selected, ports.length, portHeight - 1);
      if (next !== null) setSel(next);
    } else {
      const next = moveIndex(input, key, gSelected, gids.length, gidHeight - 1);
      if (next !== null) setGsel(next);
    }
  }, active);

  const t = ib.report.transport;
  const transport =
    t.used === true
      ? `IB transport: used, ${ib.report.ncclDevices.length} devices${t.oob.interface ? `, OOB ${t.oob.interface} ${t.oob.address}` : ''}`
      : t.used === null
        ? `IB transport: ? ${t.why}`
        : `IB transport: not used — ${t.why}`;
  if (ports.length === 0)
    return (
      <Fill height={height}>
        {banner ? <Line color={c('yellow')}>{banner}</Line> : null}
        <Line>{transport}</Line>
        <Line dim>{snapshot.rdma ? 'No RDMA devices under /sys/class/infiniband.' : 'This snapshot has no RDMA part.'}</Line>
      </Fill>
    );
  const pStart = windowStart(ports.length, portHeight, selected);
  const gStart = windowStart(gids.length, gidHeight, gSelected);
  const w = { dev: 11, state: 7, link: 4, netdev: width >= 100 ? 16 : 13, ipv4: 18, gid: 8 };
  const g = { idx: 7, addr: width >= 100 ? 28 : 24, type: 9, verdict: 14 };
  const gcur = gids[gSelected];
  const detail = gcur ? `GID ${gcur.label}: ${gcur.verdict} — ${gcur.reason}` : '';
  const mode = cur?.port.gidSelection?.mode;
  return (
    <Fill height={height}>
      {banner ? <Line color={c('yellow')}>{banner}</Line> : null}
      <Title note={position(ports.length, portHeight, pStart) ? `ports ${position(ports.length, portHeight, pStart)}` : undefined}>
        <Text bold={false} color={t.used === true ? undefined : c('yellow')}>
          {transport}
        </Text>
      </Title>
      <Line dim>
        {'  '}
        {fit('DEV:PORT', w.dev)} {fit('STATE', w.state)} {fit('LINK', w.link)} {fit('NETDEV', w.netdev)} {fit('IPv4', w.ipv4)} {fit('GID', w.gid)} NCCL
      </Line>
      {ports.slice(pStart, pStart + portHeight).map((r, i) => {
        const isSel = pStart + i === selected;
        const p = r.port;
        const nccl = p.usedByNccl === true ? `yes [${p.ncclIndex}]` : p.usedByNccl === null ? `? ${p.reason}` : `no: ${p.reason}`;
        return (
          <Text key={`${r.dev}:${p.port}`} wrap="truncate-end" inverse={isSel && focus === 'ports'} bold={isSel}>
            {isSel ? '› ' : '  '}
            {fit(`${r.dev}:${p.port}`, w.dev)} <Text color={p.state === 'ACTIVE' ? undefined : c('yellow')}>{fit(p.state ?? '?', w.state)}</Text> {fit(linkOf(p), w.link)} {fit(p.netdev ?? '-', w.netdev)}{' '}
            {fit(p.ipv4 ?? '-', w.ipv4)} {fit(gidCell(p), w.gid)} <Text color={p.usedByNccl ? c('green') : undefined}>{nccl}</Text>
          </Text>
        );
      })}
      <Title note={[mode ? `mode ${mode}` : '', position(gids.length, gidHeight, gStart)].filter(Boolean).join(' · ') || undefined}>
        GID table — {cur ? `${cur.dev}:${cur.port.port}` : ''} {focus === 'gids' ? '(↑↓ entries, Enter back to ports)' : '(Enter to browse)'}
      </Title>
      <Line dim>
        {'  '}
        {fit('IDX', g.idx)} {fit('GID', g.addr)} {fit('TYPE', g.type)} {fit('VERDICT', g.verdict)} REASON
      </Line>
      <Box flexDirection="column" height={gidHeight}>
        {gids.slice(gStart, gStart + gidHeight).map((r, i) => {
          const isSel = focus === 'gids' && gStart + i === gSelected;
          return (
            <Text key={r.label} wrap="truncate-end" inverse={isSel} bold={r.chosen} color={r.chosen ? c('green') : r.candidate ? c('yellow') : undefined}>
              {r.chosen ? '▶ ' : isSel ? '› ' : '  '}
              {fit(r.label, g.idx)} {fit(r.address, g.addr)} {fit(r.type, g.type)} {fit(r.candidate && !r.chosen ? `? ${r.verdict}` : r.verdict, g.verdict)}{' '}
              <Text dimColor={!r.chosen}>{visible(r.reason)}</Text>
            </Text>
          );
        })}
      </Box>
      {wrap(detail, width)
        .slice(0, 2)
        .map((l, i) => (
          <Line key={`d${i}`} dim>
            {l}
          </Line>
        ))}
    </Fill>
  );
}
