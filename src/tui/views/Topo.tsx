// View 7: `ncclx topo` for this node under the what-if (NCCL_IB_HCA,
// NCCL_NET_GDR_LEVEL, the version): the same text the command prints, so the
// two cannot differ. Long lines scroll sideways in place (← →).

import { useMemo } from 'react';
import type { TopoReport } from '../../model/topo/report.js';
import { visible } from '../../report/display.js';
import { makeStyle } from '../../report/style.js';
import { renderTopo } from '../../report/topo-text.js';
import { useColor, useKeys, usePersisted } from '../screen.js';
import { hband, hstep, width as textWidth } from '../text.js';
import { Fill, HLine, Line, moveIndex, position, Title } from '../ui.js';
import { maxOf } from '../../model/list.js';

export function TopoView({ report, height, width, active, banner }: { report: TopoReport; height: number; width: number; active: boolean; banner: string | null }) {
  const c = useColor();
  const [scroll, setScroll] = usePersisted('topo.scroll', 0);
  const [hoff, setHoff] = usePersisted('topo.hoff', 0);
  // The command's own text, without its title lines (the header shows the node).
  const lines = useMemo(() => renderTopo(report, makeStyle(false), false).replace(/\n+$/, '').split('\n').slice(2).map((l) => visible(l)), [report]);
  const band = hband(Math.max(0, maxOf(lines.map(textWidth))), width);
  const body = Math.max(1, height - 1 - (banner ? 1 : 0));
  const start = Math.max(0, Math.min(scroll, lines.length - body));
  useKeys((input, key) => {
    if (key.leftArrow || input === 'h') setHoff(hstep(band, hoff, -1));
    else if (key.rightArrow || input === 'l') setHoff(hstep(band, hoff, 1));
    else {
      // The first line shown moves like a list's selection, over every start that still fills the body.
      const next = moveIndex(input, key, start, Math.max(0, lines.length - body) + 1, body);
      if (next !== null) setScroll(next);
    }
  }, active);
  return (
    <Fill height={height}>
      {banner ? <Line color={c('yellow')}>{banner}</Line> : null}
      <Title note={position(lines.length, body, start) || undefined}>
        ncclx topo — NCCL {report.ncclVersion}
      </Title>
      {lines.slice(start, start + body).map((l, i) => (
        <HLine key={i} bold={/^(NCCL path types|Per GPU|NICs NCCL places|Graph search|Findings:)/.test(l)} body={[{ text: l }]} band={band} off={hoff} />
      ))}
    </Fill>
  );
}
