// Preload (`node --import ./import-trace.mjs`) that appends every module URL
// the process resolves to the file named by NCCLX_IMPORT_TRACE. The same file
// is the resolve hook (it runs on Node's hooks thread, where it registers nothing).
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url, import.meta.url);

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (process.env.NCCLX_IMPORT_TRACE) appendFileSync(process.env.NCCLX_IMPORT_TRACE, `${r.url}\n`);
  return r;
}
