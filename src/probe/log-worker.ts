// One worker thread of `ncclx log` on a large input: reads its byte ranges
// (log-parallel.ts) into a part collector and posts the part back. Any error
// is posted as such: the main thread then reads the input the ordinary way,
// which reports it as it would have.
import { parentPort, workerData } from 'node:worker_threads';
import { LogCollector } from '../model/log/analyze.js';
import { logTarget, readRange } from './log-read.js';
import type { Segment, WorkerReply } from './log-parallel.js';

const { segments } = workerData as { segments: Segment[] };
let reply: WorkerReply;
try {
  const c = LogCollector.part();
  const lines: number[] = [];
  for (const s of segments) lines.push(await readRange(s.path, s.start, s.end, logTarget(c)));
  reply = { part: c.part(), lines };
} catch (e) {
  reply = { error: e instanceof Error ? e.message : String(e) };
}
parentPort!.postMessage(reply);
