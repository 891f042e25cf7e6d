// `?`: every key, global first, then the current view's. Descriptions wrap
// under themselves when the screen has the rows for it.

import { Box } from 'ink';
import { GLOBAL_KEYS, VIEW_KEYS, VIEW_TITLE, type ViewId } from './keys.js';
import { Fill, fit, Line, Title, wrap } from './ui.js';

const KEY_W = 16;
const INDENT = ' '.repeat(2 + KEY_W + 1);

export function Help({ view, height, width }: { view: ViewId; height: number; width: number }) {
  const keys = [...GLOBAL_KEYS, ...VIEW_KEYS[view]];
  const wrapped = keys.map(([, what]) => wrap(what, Math.max(10, width - INDENT.length)));
  // Title, blank, title: three lines besides one per key; spare lines go to wrapping, in order.
  let spare = height - 3 - keys.length;
  const lines = wrapped.map((w, i) => {
    if (w.length - 1 > spare) return [keys[i]![1]];
    spare -= w.length - 1;
    return w;
  });
  const row = ([k]: [string, string], i: number) =>
    lines[i]!.map((text, j) => (
      <Line key={`${k}${j}`}>
        {j === 0 ? `  ${fit(k, KEY_W)} ` : INDENT}
        {text}
      </Line>
    ));
  return (
    <Fill height={height}>
      <Title note="any key closes">Keys</Title>
      {GLOBAL_KEYS.map((k, i) => row(k, i))}
      <Box height={1} />
      <Title>{VIEW_TITLE[view]}</Title>
      {VIEW_KEYS[view].map((k, i) => row(k, GLOBAL_KEYS.length + i))}
    </Fill>
  );
}
