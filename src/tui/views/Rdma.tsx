// View 3: RDMA devices and ports, and the GID table of the selected port with
// the entry NCCL chooses highlighted and every other entry's verdict and reason.
// Both tables keep their first column and scroll the others sideways (← →),
// with ◀ ▶ where columns or text are out of view; the ports take every row
// the terminal has to spare.

import { Box, Text } from 'ink';
import type { IbModel, PortReport } from '../../model/nccl/ib-report.js';
import { gidText, parseGid, typeLabel } from '../../model/nccl/gid.js';
import { sysError, sysText } from '../../model/nccl/ib.js';
import type { RdmaPort } from '../../model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../model/snapshot/types.js';
import { useColor, useKeys, usePersisted, type ColorName } from '../screen.js';
import { visible } from '../../report/display.js';
import { hstep, table, tableBand, type Seg } from '../text.js';
import { clamp, Fill, HLine, Line, moveIndex, position, seg, Title, windowStart, wrap } from '../ui.js';

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

/** Rows of the ports table and of the GID table for the space left: every port when it fits, the rest to the GID table. */
export function rdmaHeights(height: number, o: { banner: boolean; ports: number; gids: number; focus: 'ports' | 'gids'; detail: number }): { ports: number; gids: number; detail: number } {
  // banner, transport line, ports head, GID title, GID head
  const room = height - (o.banner ? 1 : 0) - 4;
  const detail = Math.min(o.detail, room >= 8 ? 2 + Math.max(0, room - 2 - o.ports - o.gids) : room >= 5 ? 1 : 0);
  const avail = Math.max(2, room - detail);
  // The focused table keeps more of its rows when both cannot be shown whole.
  const least = Math.min(o.ports, o.focus === 'ports' ? 6 : 3);
  const ports = Math.max(1, Math.min(o.ports, Math.max(least, avail - o.gids), avail - 1));
  return { ports, gids: Math.max(1, avail - ports), detail };
}

export function RdmaView({ ib, snapshot, height, width, active, banner }: { ib: IbModel; snapshot: NodeSnapshot; height: number; width: number; active: boolean; banner: string | null }) {
  const c = useColor();
  const [sel, setSel] = usePersisted('rdma.port', 0);
  const [gsel, setGsel] = usePersisted('rdma.gid', 0);
  const [focus, setFocus] = usePersisted<'ports' | 'gids'>('rdma.focus', 'ports');
  const [hoff, setHoff] = usePersisted<{ ports: number; gids: number }>('rdma.hoff', { ports: 0, gids: 0 });
  const ports = portRows(ib, snapshot);
  const selected = clamp(sel, ports.length);
  const cur = ports[selected];
  const gids = cur ? gidRows(cur.port, cur.raw) : [];
  const chosenRow = Math.max(0, gids.findIndex((g) => g.chosen));
  const gSelected = focus === 'gids' ? clamp(gsel, gids.length) : chosenRow;
  const gcur = gids[gSelected];
  const detail = wrap(gcur ? `GID ${gcur.label}: ${gcur.verdict} — ${gcur.reason}` : '', width);
  const h = rdmaHeights(height, { banner: !!banner, ports: ports.length, gids: gids.length, focus, detail: detail.length });
  const portHeight = h.ports;
  const gidHeight = h.gids;

  // The tables: the first column (device:port, GID index) stays, the others scroll sideways.
  const pTable = table(
    ['DEV:PORT', 'STATE', 'LINK', 'NETDEV', 'IPv4', 'GID', 'NCCL'].map((t) => seg(t)),
    ports.map((r) => portCells(r, c)),
  );
  const gTable = table(
    ['IDX', 'GID', 'TYPE', 'VERDICT', 'REASON'].map((t) => seg(t)),
    gids.map((r) => gidCells(r)),
  );
  const pBand = tableBand(pTable, width, 2 + pTable.firstW);
  const gBand = tableBand(gTable, width, 2 + gTable.firstW);

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
    if (key.leftArrow || key.rightArrow || input === 'h' || input === 'l') {
      const band = focus === 'ports' ? pBand : gBand;
      const dir = key.leftArrow || input === 'h' ? -1 : 1;
      setHoff({ ...hoff, [focus]: hstep(band, hoff[focus], dir) });
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
  const mode = cur?.port.gidSelection?.mode;
  const pHead = pTable.row(['DEV:PORT', 'STATE', 'LINK', 'NETDEV', 'IPv4', 'GID', 'NCCL'].map((x) => seg(x)));
  const gHead = gTable.row(['IDX', 'GID', 'TYPE', 'VERDICT', 'REASON'].map((x) => seg(x)));
  return (
    <Fill height={height}>
      {banner ? <Line color={c('yellow')}>{banner}</Line> : null}
      <Title note={position(ports.length, portHeight, pStart) ? `ports ${position(ports.length, portHeight, pStart)}` : undefined}>
        <Text bold={false} color={t.used === true ? undefined : c('yellow')}>
          {visible(transport)}
        </Text>
      </Title>
      <HLine dim fixed={[seg('  '), pHead.first, seg(' ')]} body={pHead.body} band={pBand} off={hoff.ports} />
      {ports.slice(pStart, pStart + portHeight).map((r, i) => {
        const isSel = pStart + i === selected;
        const row = pTable.row(portCells(r, c));
        return <HLine key={`${r.dev}:${r.port.port}`} inverse={isSel && focus === 'ports'} bold={isSel} fixed={[seg(isSel ? '› ' : '  '), row.first, seg(' ')]} body={row.body} band={pBand} off={hoff.ports} />;
      })}
      <Title note={[mode ? `mode ${mode}` : '', position(gids.length, gidHeight, gStart)].filter(Boolean).join(' · ') || undefined}>
        GID table — {cur ? `${cur.dev}:${cur.port.port}` : ''} {focus === 'gids' ? '(↑↓ entries, Enter back to ports)' : '(Enter to browse)'}
      </Title>
      <HLine dim fixed={[seg('  '), gHead.first, seg(' ')]} body={gHead.body} band={gBand} off={hoff.gids} />
      {/* Rows the table does not need stay below the detail, at the bottom. */}
      <Box flexDirection="column" height={Math.min(gidHeight, Math.max(1, gids.length))} flexShrink={0}>
        {gids.slice(gStart, gStart + gidHeight).map((r, i) => {
          const isSel = focus === 'gids' && gStart + i === gSelected;
          const row = gTable.row(gidCells(r));
          return (
            <HLine
              key={r.label}
              inverse={isSel}
              bold={r.chosen}
              color={r.chosen ? c('green') : r.candidate ? c('yellow') : undefined}
              fixed={[seg(r.chosen ? '▶ ' : isSel ? '› ' : '  '), row.first, seg(' ')]}
              body={row.body}
              band={gBand}
              off={hoff.gids}
            />
          );
        })}
      </Box>
      {detail.slice(0, h.detail).map((l, i) => (
        <Line key={`d${i}`} dim>
          {l}
        </Line>
      ))}
    </Fill>
  );
}

function portCells(r: PortRow, c: (x: ColorName) => ColorName | undefined): Seg[] {
  const p = r.port;
  const nccl = p.usedByNccl === true ? `yes [${p.ncclIndex}]` : p.usedByNccl === null ? `? ${p.reason}` : `no: ${p.reason}`;
  return [
    seg(`${r.dev}:${p.port}`),
    seg(p.state ?? '?', { color: p.state === 'ACTIVE' ? undefined : c('yellow') }),
    seg(linkOf(p)),
    seg(p.netdev ?? '-'),
    seg(p.ipv4 ?? '-'),
    seg(gidCell(p)),
    seg(nccl, { color: p.usedByNccl ? c('green') : undefined }),
  ];
}

function gidCells(r: GidRow): Seg[] {
  return [seg(r.label), seg(r.address), seg(r.type), seg(r.candidate && !r.chosen ? `? ${r.verdict}` : r.verdict), seg(r.reason, { dim: !r.chosen })];
}
