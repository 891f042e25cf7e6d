// One file → NodeFacts or the reason it was skipped. What a worker thread
// runs per file; the in-process path runs the same function.

import { nodeFacts, type FactsOptions } from '../model/compare/facts.js';
import { loadSnapshotFile } from './load.js';
import type { NodeFacts } from '../model/compare/types.js';

export type Extracted = { ok: true; facts: NodeFacts } | { ok: false; problem: string };

export function extractFile(file: string, maxBytes: number, o: FactsOptions): Extracted {
  // A node's file must never stop the comparison of the others: whatever goes wrong with it, it is skipped by name, with why.
  try {
    const r = loadSnapshotFile(file, maxBytes);
    if (!r.ok) return r;
    return { ok: true, facts: nodeFacts(r.snapshot, file, o) };
  } catch (e) {
    const message = String((e as Error)?.message ?? e).split('\n')[0]!;
    return { ok: false, problem: `internal error while analysing it: ${message.length > 200 ? `${message.slice(0, 197)}...` : message}` };
  }
}

/** What crosses the thread boundary: a RegExp is sent as source and flags. */
export interface WireOptions extends Omit<FactsOptions, 'uplinkRegex'> {
  uplink: { source: string; flags: string };
  maxBytes: number;
}

export function toWire(o: FactsOptions, maxBytes: number): WireOptions {
  const { uplinkRegex, ...rest } = o;
  return { ...rest, uplink: { source: uplinkRegex.source, flags: uplinkRegex.flags }, maxBytes };
}

export function fromWire(w: WireOptions): { o: FactsOptions; maxBytes: number } {
  const { uplink, maxBytes, ...rest } = w;
  return { o: { ...rest, uplinkRegex: new RegExp(uplink.source, uplink.flags) }, maxBytes };
}
