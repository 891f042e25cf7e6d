// A saved plan (`ncclx fix --json > plan.json`) applied later with `--plan`:
// what was reviewed is exactly what is applied. Validated strictly, because
// every field ends up in a kernel command.

import { UserError } from '../model/errors.js';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { FixPlan } from '../model/fix/types.js';

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

const planSchema = z.object({
  schema: z.literal('ncclx.fix-plan/v1'),
  host: z.string(),
  fixes: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      resolves: z.array(z.object({ checkId: z.string(), severity: z.string(), summary: z.string() })),
      ops: z.array(op),
      notes: z.array(z.string()),
      blocked: z.string().nullable(),
    }),
  ),
});

export class PlanFileError extends UserError {}

export function loadPlanFile(path: string): FixPlan {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new PlanFileError(`--plan ${path}: ${(e as Error).message}`);
  }
  const r = planSchema.safeParse(data);
  if (!r.success) {
    const first = r.error.issues[0]!;
    throw new PlanFileError(`--plan ${path}: not an ncclx fix plan (${first.path.join('.') || 'top'}: ${first.message})`);
  }
  return r.data as FixPlan;
}
