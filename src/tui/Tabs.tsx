// The view switcher: number, title, the active one inverted.

import { Box, Text } from 'ink';
import { VIEWS, VIEW_TITLE, type ViewId } from './keys.js';
import { useColor } from './screen.js';

export function Tabs({ active, marks }: { active: ViewId; marks?: Partial<Record<ViewId, string>> }) {
  const c = useColor();
  return (
    <Box height={1}>
      <Text wrap="truncate-end">
        {VIEWS.map((v, i) => (
          <Text key={v}>
            {i ? ' ' : ''}
            <Text inverse={v === active} bold={v === active} color={v === active ? c('cyan') : undefined}>
              {` ${i + 1} ${VIEW_TITLE[v]}${marks?.[v] ?? ''} `}
            </Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
