import { describe, expect, it } from 'vitest';
import { lowerFirst } from '../../src/model/text.js';

describe('lowerFirst', () => {
  it('lowers a word, keeps acronyms and names', () => {
    expect(lowerFirst('Detected a mix')).toBe('detected a mix');
    for (const s of ['NCCL_IB_HCA keeps', 'IPv6-only', 'GID choice', 'RDMA ports', 'X', '']) expect(lowerFirst(s)).toBe(s);
  });
});
