// The bottom line: the current view's keys, then the global ones.

import { Box, Text } from 'ink';

export function Footer({ hint, message }: { hint: string; message?: string | null }) {
  return (
    <Box height={1}>
      <Box flexGrow={1} flexShrink={1}>
        <Text dimColor wrap="truncate-end">
          {message ?? hint}
        </Text>
      </Box>
      <Box flexShrink={0}>
        <Text dimColor wrap="truncate-end"> Tab view  ? keys  q quit</Text>
      </Box>
    </Box>
  );
}
