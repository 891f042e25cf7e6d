// One worker thread of `ncclx log` on a large input: reads its byte ranges
// (log-parallel.ts) into a part collector and posts the part back. Any error
// is posted as such: the main thread then reads the input the ordinary way,
// which reports it as it would have.
import { parentPort, workerData } from 'node:worker_threads';
import { readPart, type Segment } from './log-parallel.js';

const { segments } = workerData as { segments: Segment[] };
parentPort!.postMessage(await readPart(segments));
