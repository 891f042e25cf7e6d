// A saved plan (`ncclx fix --json > plan.json`) applied later with `--plan`:
// what was reviewed is exactly what is applied. Validated strictly, because
// every field ends up in a kernel command.

import { UserError } from '../model/errors.js';
import { z } from 'zod';
import { PLAN_SCHEMA, type FixPlan } from '../model/fix/types.js';

const ifname = z.string().min(1).max(15).refine((s) => !/[\/\s:]/.test(s) || s === 'all', 'not an interface name');
const ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/);
const prefix = z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/);

const selector = z.discriminatedUnion('by', [
  z.object({ by: z.literal('oif'), iface: ifname }),
  z.object({ by: z.literal('daddr'), prefix, family: z.union([z.literal(4), z.literal(6)]) }),
  z.object({ by: z.literal('uid'), uid: z.number().int().min(0) }),
  z.object({ by: z.literal('cgroup'), path: z.string().min(1) }),
  z.object({ by: z.literal('ports'), lo: z.number().int().min(1).max(65535), hi: z.number().int().min(1).max(65535), dir: z.enum(['dport', 'sport']) }),
]);

const dscp = z.number().int().min(0).max(63);
const table = z.number().int().min(1).max(0xfffffffe);

const op = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sysctl'), key: z.string().regex(/^net\/[^\0]+$/).refine((k) => !k.split('/').includes('..'), 'no ..'), value: z.string().regex(/^-?\d+$/) }),
  z.object({ kind: z.literal('file'), path: z.string().startsWith('/'), content: z.string(), mode: z.number().int().min(0).max(0o7777), expect: z.string().nullable(), what: z.string() }),
  z.object({ kind: z.literal('ip-rule'), from: ipv4, table, priority: z.number().int().min(0).optional() }),
  z.object({ kind: z.literal('ip-route'), dst: prefix, dev: ifname, src: ipv4, table }),
  z.object({ kind: z.literal('nft-mark'), table: z.string().regex(/^[A-Za-z0-9_]+$/), dscp, selectors: z.array(selector).min(1) }),
  z.object({ kind: z.literal('iptables-mark'), chain: z.string().regex(/^[A-Za-z0-9_]+$/), dscp, selectors: z.array(selector).min(1), ipv6: z.boolean() }),
  z.object({ kind: z.literal('qdisc'), dev: ifname, scheduler: z.enum(['prio', 'htb']), dscp, rateMbit: z.number().positive().optional(), replaces: z.string() }),
]);

const identity = z.object({ machineId: z.string().nullable(), hostname: z.string().nullable(), bootId: z.string().nullable() });
const origin = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('live'), node: identity }),
  z.object({ kind: z.literal('snapshot'), path: z.string() }),
  z.object({ kind: z.literal('root'), path: z.string() }),
]);

const planSchema = z.object({
  schema: z.literal(PLAN_SCHEMA),
  host: z.string(),
  origin,
  fixes: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      resolves: z.array(z.object({ checkId: z.string(), severity: z.string(), summary: z.string() })),
      ops: z.array(op),
      notes: z.array(z.string()),
      blocked: z.string().nullable(),
      seen: z.array(z.unknown()).optional(),
    }),
  ),
});

export class PlanFileError extends UserError {}

/** Reads a file's text within a size limit (probe/read-bounded.ts, passed in: fix does not import probe). */
export type ReadText = (path: string) => { ok: true; text: string } | { ok: false; message: string };

export function loadPlanFile(path: string, read: ReadText): FixPlan {
  let data: unknown;
  try {
    const r = read(path);
    if (!r.ok) throw new Error(r.message);
    data = JSON.parse(r.text);
  } catch (e) {
    throw new PlanFileError(`--plan ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  if ((data as { schema?: unknown } | null)?.schema === 'ncclx.fix-plan/v1') {
    throw new PlanFileError(`--plan ${path}: made by an older ncclx, without where it was made and on which node: plan again (ncclx fix --json)`);
  }
  const r = planSchema.safeParse(data);
  if (!r.success) {
    const first = r.error.issues[0]!;
    throw new PlanFileError(`--plan ${path}: not an ncclx fix plan (${first.path.join('.') || 'top'}: ${first.message})`);
  }
  return r.data as FixPlan;
}
