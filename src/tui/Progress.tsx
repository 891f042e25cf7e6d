// While the node is read: finished steps with ✓ and the current one with a
// spinner, so a slow command (nft, tc on a busy node) shows what it waits for.

import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { visible } from '../report/display.js';
import { useColor } from './screen.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface ProgressState {
  done: { what: string; ms: number }[];
  current: string;
}

function Spinner() {
  const [i, setI] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setI((x) => (x + 1) % FRAMES.length), 80);
    return () => clearInterval(t);
  }, []);
  return <Text>{FRAMES[i]}</Text>;
}

export function Progress({ state, height }: { state: ProgressState; height: number }) {
  const c = useColor();
  // Only the last steps that fit; the current one always shows.
  const shown = state.done.slice(Math.max(0, state.done.length - Math.max(0, height - 2)));
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate-end">Reading the node</Text>
      {shown.map((s) => (
        <Text key={s.what} wrap="truncate-end">
          <Text color={c('green')}>[✓]</Text> {visible(s.what)} <Text dimColor>{s.ms < 1 ? '<1' : Math.round(s.ms)} ms</Text>
        </Text>
      ))}
      <Text wrap="truncate-end">
        <Text color={c('cyan')}>
          {' '}
          <Spinner />{' '}
        </Text>{' '}
        {visible(state.current)}…
      </Text>
    </Box>
  );
}
