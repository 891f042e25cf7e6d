// The bottom line: the current view's keys, then the global ones.

import { Box, Text } from 'ink';
import React from 'react';

export function Footer({ hint, message }: { hint: string; message?: string | null }) {
  return (
    <Box>
      <Box flexGrow={1}>
        <Text dimColor wrap="truncate-end">
          {message ?? hint}
        </Text>
      </Box>
      <Text dimColor> Tab view  ? keys  q quit</Text>
    </Box>
  );
}
