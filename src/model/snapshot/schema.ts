// Validation of snapshot files (src/probe/snapshot-file.ts reads them). Loaded
// only when a snapshot is read from disk: zod costs start-up time the live
// path does not need to pay.

import { z } from 'zod';
import { UserError } from '../errors.js';
import { SNAPSHOT_SCHEMA_VERSION, type NodeSnapshot } from './types.js';

const family = z.enum(['AF_INET', 'AF_INET6']);

const link = z.object({
  ifindex: z.number().int(),
  name: z.string().min(1),
  kind: z.string().nullable(),
  linkType: z.string().nullable(),
  master: z.string().nullable(),
  mtu: z.number().int().nullable(),
  mac: z.string().nullable(),
  operstate: z.string(),
  flags: z.array(z.string()),
  speedMbps: z.number().int().nullable().optional(),
  device: z.string().nullable().optional(),
});

const address = z.object({
  name: z.string().min(1),
  link: z.string().min(1),
  ifindex: z.number().int(),
  family,
  address: z.string().min(1),
  prefixlen: z.number().int().min(0).max(128),
  scope: z.string(),
  scopeId: z.number().int().min(0),
  flags: z.array(z.string()),
});

const confFile = z.object({
  path: z.string(),
  role: z.enum(['NCCL_CONF_FILE', 'home-passwd', 'home-env', 'etc']),
  content: z.string().nullable(),
  error: z.string().nullable(),
});

// The RDMA part (src/snapshot/rdma-types.ts). A sysfs value is its text or the errno of the failed read.
const sysfsRead = z.union([z.string(), z.object({ error: z.string() })]);
const presence = z.object({ path: z.string(), present: z.boolean() });
const rdmaPort = z.object({
  port: z.number().int().min(0),
  state: sysfsRead,
  physState: sysfsRead,
  linkLayer: sysfsRead,
  rate: sysfsRead,
  lid: sysfsRead,
  gidCount: z.number().int().min(0),
  gids: z.array(z.object({ index: z.number().int().min(0), gid: sysfsRead, type: sysfsRead, ndev: sysfsRead })),
});
const rdmaDevice = z.object({
  name: z.string().min(1),
  classEntryIsSymlink: z.boolean(),
  nodeType: sysfsRead,
  fwVer: sysfsRead,
  nodeGuid: sysfsRead,
  sysImageGuid: sysfsRead,
  hcaType: sysfsRead,
  boardId: sysfsRead,
  device: z.object({
    kind: z.enum(['symlink', 'directory', 'missing', 'other']),
    link: z.string().nullable(),
    realpath: z.string().nullable(),
    subsystem: z.string().nullable(),
    folded: z.array(z.object({ variant: z.enum(['mergeVfs', 'functionOnly', 'lowDigit']), path: z.string(), exists: z.boolean(), subsystem: z.string().nullable() })),
  }),
  pci: z
    .object({
      bdf: z.string(),
      class: sysfsRead,
      vendor: sysfsRead,
      device: sysfsRead,
      subsystemVendor: sysfsRead,
      subsystemDevice: sysfsRead,
      numaNode: sysfsRead,
      currentLinkSpeed: sysfsRead,
      currentLinkWidth: sysfsRead,
      maxLinkSpeed: sysfsRead,
      maxLinkWidth: sysfsRead,
    })
    .nullable(),
  pciNetdevs: z.array(z.string()),
  uverbs: z.string().nullable(),
  ports: z.array(rdmaPort),
});
const rdmaPart = z.object({
  classPresent: z.boolean(),
  devices: z.array(rdmaDevice),
  netdevs: z.record(
    z.string(),
    z.object({
      name: z.string(),
      present: z.boolean(),
      operstate: sysfsRead,
      carrier: sysfsRead.optional(),
      mtu: sysfsRead,
      devPort: sysfsRead,
      devId: sysfsRead,
      master: z.string().nullable(),
      bondSlaves: z.array(z.string()).nullable(),
    }),
  ),
  peerMem: z.array(presence),
  modules: z.array(presence),
  sysModuleKnown: z.boolean(),
  devInfiniband: z.object({ known: z.boolean(), present: z.boolean(), entries: z.array(z.string()) }),
  memlock: z.object({ soft: z.string().nullable(), hard: z.string().nullable(), error: z.string().nullable() }),
  container: z.object({ detected: z.boolean(), evidence: z.array(z.string()) }),
});

// The kernel part (src/snapshot/kernel-types.ts). iproute2 objects are kept as
// printed, so only the fields ncclx reads are checked and the rest passes through.
const procRead = z.union([z.string(), z.object({ error: z.string() })]);
function captured<T extends z.ZodType>(data: T) {
  const base = { argv: z.array(z.string()), record: z.string(), from: z.enum(['live', 'recorded', 'proc']) };
  return z.discriminatedUnion('ok', [
    z.object({ ...base, ok: z.literal(true), data }),
    z.object({ ...base, ok: z.literal(false), error: z.string(), missing: z.boolean() }),
  ]);
}
const ipRouteJson = z.looseObject({
  dst: z.string().optional(),
  table: z.string().optional(),
  type: z.string().optional(),
  dev: z.string().optional(),
  gateway: z.string().optional(),
  prefsrc: z.string().optional(),
  metric: z.number().optional(),
  nexthops: z.array(z.looseObject({ gateway: z.string().optional(), dev: z.string().optional() })).optional(),
});
const kernelPart = z.object({
  conf: z.record(z.string(), z.object({ arp_announce: procRead, arp_ignore: procRead, arp_filter: procRead, rp_filter: procRead })),
  localPortRange: procRead,
  rules: captured(
    z.array(
      z.looseObject({
        priority: z.number().optional(),
        src: z.string().optional(),
        srclen: z.number().optional(),
        table: z.string().optional(),
        action: z.string().optional(),
        not: z.boolean().optional(),
      }),
    ),
  ),
  routes: captured(z.array(ipRouteJson)),
  routeTargets: z.array(
    z.object({
      variable: z.enum(['MASTER_ADDR', 'NCCL_COMM_ID']),
      value: z.string(),
      source: z.string(),
      host: z.string(),
      address: z.string().nullable(),
      unresolved: z.string().nullable(),
      route: captured(z.array(ipRouteJson)).nullable(),
    }),
  ),
  qdiscs: captured(z.array(z.looseObject({ kind: z.string(), dev: z.string(), handle: z.string().optional(), root: z.boolean().optional(), parent: z.string().optional() }))),
  nft: captured(
    z.object({
      tables: z.number().int(),
      chains: z.number().int(),
      rules: z.number().int(),
      dscpRules: z.array(z.object({ family: z.string(), table: z.string(), chain: z.string(), handle: z.number().nullable(), hook: z.string().nullable(), expr: z.array(z.unknown()) })),
      xtRules: z.number().int(),
    }),
  ),
  iptablesMangle: captured(z.string()),
  ip6tablesMangle: captured(z.string()),
});

const pciFunction = z.object({
  bdf: z.string(),
  class: z.string(),
  vendor: z.string(),
  device: z.string(),
  numaNode: z.number().nullable(),
  driver: z.string().nullable(),
  netdevs: z.array(z.string()),
});

const topoFunction = z.object({
  bdf: z.string(),
  path: z.array(z.string()),
  class: z.string().nullable(),
  vendor: z.string().nullable(),
  device: z.string().nullable(),
  subsystemVendor: z.string().nullable().optional(),
  subsystemDevice: z.string().nullable().optional(),
  numaNode: z.number().nullable(),
  maxLinkSpeed: z.string().nullable(),
  maxLinkWidth: z.number().nullable(),
  currentLinkSpeed: z.string().nullable(),
  currentLinkWidth: z.number().nullable(),
});

const netPluginLib = z.object({
  path: z.string(),
  product: z.string().nullable(),
  version: z.string().nullable(),
  netNames: z.array(z.string()),
  apis: z.array(z.number().int()),
  error: z.string().nullable(),
});

export const nodeSnapshotSchema = z.object({
  schemaVersion: z.literal(SNAPSHOT_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('ncclx'), version: z.string() }),
  capturedAt: z.string(),
  root: z.string(),
  host: z.object({
    hostname: z.string(),
    os: z.string().nullable(),
    kernel: z.string().nullable(),
    arch: z.string().nullable(),
    source: z.string(),
  }),
  network: z.object({
    source: z.enum(['iproute2', 'recorded-iproute2', 'sysfs', 'os.networkInterfaces', 'proc']),
    links: z.array(link),
    addresses: z.array(address),
  }),
  env: z.object({
    process: z.record(z.string(), z.string()),
    confFiles: z.array(confFile),
    home: z.object({ passwd: z.string().nullable(), env: z.string().nullable() }),
  }),
  resolutions: z.record(
    z.string(),
    z.object({ addresses: z.array(z.object({ address: z.string(), family })), error: z.string().nullable() }),
  ),
  ncclLibrary: z.object({
    candidates: z.array(
      z.object({
        path: z.string(),
        version: z.string().nullable(),
        via: z.string(),
        versionFrom: z.enum(['binary', 'file name', 'dist-info', 'conda-meta', 'dpkg']).nullable().optional(),
        versionText: z.string().nullable().optional(),
        loadedBy: z.array(z.enum(['process', 'pytorch', 'loader'])).optional(),
        loadNotes: z.array(z.string()).optional(),
        static: z.boolean().optional(),
      }),
    ),
    searched: z.array(z.string()),
    pythons: z
      .array(
        z.object({
          via: z.string(),
          interpreter: z.string(),
          real: z.string().nullable(),
          prefix: z.string(),
          venv: z.boolean(),
          version: z.string().nullable(),
          sitePackages: z.array(z.string()),
          torch: z.string().nullable().optional(),
          note: z.string().nullable(),
        }),
      )
      .optional(),
    notes: z.array(z.string()).optional(),
  }),
  warnings: z.array(z.object({ source: z.string(), message: z.string() })),
  rdma: rdmaPart.optional(),
  kernel: kernelPart.optional(),
  netPlugins: z
    .object({
      lookups: z.array(z.object({ name: z.string(), path: z.string().nullable(), step: z.string().nullable() })),
      libraries: z.array(netPluginLib),
      elsewhere: z.array(netPluginLib),
      asker: z.string().nullable(),
      mapped: z.string().nullable(),
    })
    .optional(),
  reader: z.object({ uid: z.number().int().nullable(), tools: z.record(z.string(), z.boolean()) }).optional(),
  process: z
    .object({ pid: z.number().int(), command: z.string(), ownRoot: z.boolean(), netns: z.string().nullable(), sameNetns: z.boolean(), networkFrom: z.string() })
    .optional(),
  pci: z
    .object({
      present: z.boolean(),
      nics: z.array(pciFunction),
      gpus: z.array(pciFunction),
      topology: z
        .object({
          functions: z.array(topoFunction),
          gpus: z.array(z.string()),
          numaNodes: z.array(z.object({ id: z.number(), cpulist: z.string() })),
          cpu: z.object({ arch: z.string().nullable(), vendor: z.string().nullable(), family: z.number().nullable(), model: z.number().nullable() }),
          nvlink: z.object({ links: z.array(z.array(z.number())), source: z.string() }).nullable().optional(),
          nvlinkStatus: z
            .object({ gpus: z.array(z.object({ index: z.number(), name: z.string(), links: z.array(z.object({ link: z.number(), gbps: z.number().nullable() })) })), source: z.string() })
            .nullable()
            .optional(),
          topoFiles: z.array(z.object({ path: z.string(), text: z.string().nullable(), error: z.string().nullable() })).optional(),
        })
        .optional(),
    })
    .optional(),
});

/** Snapshot files larger than this are refused before parsing. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

export class SnapshotError extends UserError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

function firstIssue(err: z.ZodError): string {
  const i = err.issues[0]!;
  const where = i.path.length ? i.path.join('.') : '(top level)';
  return `${where}: ${i.message}`;
}

/** Validate parsed JSON as a snapshot; throws SnapshotError with a one-line problem. */
export function validateSnapshot(data: unknown, file: string): NodeSnapshot {
  if (data && typeof data === 'object' && 'schemaVersion' in data && (data as { schemaVersion: unknown }).schemaVersion !== SNAPSHOT_SCHEMA_VERSION) {
    throw new SnapshotError(file, `schema version ${JSON.stringify((data as { schemaVersion: unknown }).schemaVersion)} is not supported (this ncclx reads version ${SNAPSHOT_SCHEMA_VERSION})`);
  }
  const r = nodeSnapshotSchema.safeParse(data);
  if (!r.success) throw new SnapshotError(file, `not a valid ncclx snapshot: ${firstIssue(r.error)}`);
  return r.data as NodeSnapshot;
}
