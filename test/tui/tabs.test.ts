// The tab bar names all seven views at every width the TUI runs at (40 columns and up).
import { describe, expect, it } from 'vitest';
import { tabLabels } from '../../src/tui/Tabs.js';
import { VIEWS } from '../../src/tui/keys.js';

describe('tab labels', () => {
  for (const cols of [40, 46, 60, 80, 200]) {
    it(`${cols} columns: every view numbered and named, within the width`, () => {
      const { labels, gap } = tabLabels(cols, { whatif: '*' });
      expect(labels).toHaveLength(VIEWS.length);
      labels.forEach((l, i) => expect(l.trim()).toMatch(new RegExp(`^${i + 1} \\S+`)));
      expect(labels.join(gap).length).toBeLessThanOrEqual(cols);
    });
  }
  it('full titles when they fit', () => {
    expect(tabLabels(200).labels.map((l) => l.trim())).toEqual(['1 Summary', '2 Interfaces', '3 RDMA', '4 What-if', '5 Fixes', '6 Env', '7 Topology']);
  });
});
