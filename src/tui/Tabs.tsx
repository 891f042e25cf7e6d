// The view switcher: number, title, the active one inverted. Every view is
// always named: narrower terminals get tighter gaps, then short titles.

import { Box, Text } from 'ink';
import { VIEWS, VIEW_SHORT, VIEW_TINY, VIEW_TITLE, type ViewId } from './keys.js';
import { useColor, useScreen } from './screen.js';

type Style = { titles: Record<ViewId, string>; pad: string; gap: string };

const STYLES: Style[] = [
  { titles: VIEW_TITLE, pad: ' ', gap: ' ' },
  { titles: VIEW_TITLE, pad: '', gap: '  ' },
  { titles: VIEW_TITLE, pad: '', gap: ' ' },
  { titles: VIEW_SHORT, pad: '', gap: ' ' },
  { titles: VIEW_TINY, pad: '', gap: ' ' },
];

const label = (st: Style, v: ViewId, i: number, mark: string) => `${st.pad}${i + 1} ${st.titles[v]}${mark}${st.pad}`;

/** The tab labels that fit `cols` (the shortest style when none does). */
export function tabLabels(cols: number, marks: Partial<Record<ViewId, string>> = {}): { labels: string[]; gap: string } {
  const make = (st: Style) => ({ labels: VIEWS.map((v, i) => label(st, v, i, marks[v] ?? '')), gap: st.gap });
  for (const st of STYLES) {
    const t = make(st);
    if (t.labels.join(t.gap).length <= cols) return t;
  }
  return make(STYLES[STYLES.length - 1]!);
}

export function Tabs({ active, marks }: { active: ViewId; marks?: Partial<Record<ViewId, string>> }) {
  const c = useColor();
  const { cols } = useScreen();
  const { labels, gap } = tabLabels(cols, marks);
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        {VIEWS.map((v, i) => (
          <Text key={v}>
            {i ? gap : ''}
            <Text inverse={v === active} bold={v === active} color={v === active ? c('cyan') : undefined}>
              {labels[i]}
            </Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
