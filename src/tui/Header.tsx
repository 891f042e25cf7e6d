// Three lines: who and what was read, the NCCL version and where it came from,
// and the overall verdict.

import { Box, Text } from 'ink';
import { versionString } from '../model/nccl/versions.js';
import { visible } from '../report/display.js';
import type { Model, NodeSource } from './model.js';
import { verdict } from './model.js';
import { useColor } from './screen.js';
import { Line, MARKS, SEVERITY_COLOR } from './ui.js';

export function sourceLabel(s: NodeSource): string {
  return s.kind === 'live' ? 'this node' : s.kind === 'root' ? `root ${s.path}` : `snapshot ${s.path}`;
}

export function Header({ model, source }: { model: Model; source: NodeSource }) {
  const c = useColor();
  const snap = model.run.context.snapshot;
  const r = model.run.context.reasoning;
  const v = verdict(model.run.results);
  const ports = (snap.rdma?.devices ?? []).reduce((n, d) => n + d.ports.length, 0);
  return (
    <Box flexDirection="column">
      <Line bold>
        ncclx doctor · {snap.host.hostname}{' '}
        <Text color={c(SEVERITY_COLOR[v.severity])}>
          {MARKS[v.severity]} {v.text}
        </Text>
      </Line>
      <Line>
        NCCL {versionString(r.choice.version)} ({r.profile.id}) <Text dimColor>· from {visible(r.choice.source)}</Text>
      </Line>
      <Line dim>
        kernel {snap.host.kernel ?? '?'} · {snap.network.links.length} links · {snap.rdma ? `${ports} RDMA ports` : 'no RDMA data'} · {sourceLabel(source)}
      </Line>
    </Box>
  );
}

/** While the node is being read: the same three lines, with what is known. */
export function LoadingHeader({ source }: { source: NodeSource }) {
  return (
    <Box flexDirection="column">
      <Line bold>ncclx doctor · reading {sourceLabel(source)}…</Line>
      <Line dim>NCCL version: not known yet</Line>
      <Line dim> </Line>
    </Box>
  );
}
