// `?`: every key, global first, then the current view's.

import { Box } from 'ink';
import { GLOBAL_KEYS, VIEW_KEYS, VIEW_TITLE, type ViewId } from './keys.js';
import { Fill, fit, Line, Title } from './ui.js';

export function Help({ view, height }: { view: ViewId; height: number }) {
  const row = ([k, what]: [string, string]) => (
    <Line key={k}>
      {'  '}
      {fit(k, 16)} {what}
    </Line>
  );
  return (
    <Fill height={height}>
      <Title note="any key closes">Keys</Title>
      {GLOBAL_KEYS.map(row)}
      <Box height={1} />
      <Title>{VIEW_TITLE[view]}</Title>
      {VIEW_KEYS[view].map(row)}
    </Fill>
  );
}
