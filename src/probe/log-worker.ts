// One worker thread of `ncclx log` on a large input: reads its byte ranges
// (log-parallel.ts) into a part collector and posts the part back. Any error
// is posted as such: the main thread then reads the input the ordinary way,
// which reports it as it would have. No top-level await: the single
// executable runs this module bundled as a CommonJS script.
import { parentPort, workerData } from 'node:worker_threads';
import { readPart, type Segment } from './log-parallel.js';

const { segments } = workerData as { segments: Segment[] };
void readPart(segments).then((reply) => parentPort!.postMessage(reply));
