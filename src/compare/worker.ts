// Worker thread: reads and reduces batches of snapshot files, sends back
// NodeFacts (a few kilobytes each instead of a megabyte of snapshot).

import { parentPort, workerData } from 'node:worker_threads';
import { extractFile, fromWire, type Extracted, type WireOptions } from './extract.js';

const { o, maxBytes } = fromWire(workerData as WireOptions);

parentPort!.on('message', (batch: [number, string][]) => {
  const out: [number, Extracted][] = batch.map(([i, file]) => [i, extractFile(file, maxBytes, o)]);
  parentPort!.postMessage(out);
});
