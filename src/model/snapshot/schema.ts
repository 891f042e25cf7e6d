// Validation of snapshot files (src/probe/snapshot-file.ts reads them). Loaded
// only when a snapshot is read from disk: zod costs start-up time the live
// path does not need to pay.

import { z } from 'zod';
import { UserError } from '../errors.js';
import { SNAPSHOT_LIMITS } from './limits.js';
import { SNAPSHOT_SCHEMA_VERSION, type NodeSnapshot } from './types.js';

const L = SNAPSHOT_LIMITS;

// Every string, number, array and record is bounded by what a real node can
// hold (./limits.ts says where each bound comes from); past one, the file is
// refused by name with the field's path.
const text = (max: number = L.text) => z.string().max(max, { error: `longer than ${max} characters` });
const name = (max: number) => text(max).min(1);
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const list = <T extends z.ZodType>(item: T, max: number, what: string) => z.array(item).max(max, { error: `more than ${max} entries (${what})` });
const dict = <T extends z.ZodType>(value: T, max: number, what: string, key: z.ZodString = text()) =>
  z.record(key, value).refine((o) => Object.keys(o).length <= max, { error: `more than ${max} entries (${what})` });
const U32 = 0xffff_ffff;
const I32 = 0x7fff_ffff;

const family = z.enum(['AF_INET', 'AF_INET6']);
const flags = list(text(64), L.flags, 'flags of one link or address');

const link = z.object({
  ifindex: int(0, I32),
  name: name(L.ifname),
  kind: text(64).nullable(),
  linkType: text(64).nullable(),
  master: text(L.ifname).nullable(),
  mtu: int(0, I32).nullable(),
  mac: text(256).nullable(),
  operstate: text(64),
  flags,
  // /sys/class/net/<if>/speed (an int in Mb/s; -1 when unknown is read as null).
  speedMbps: int(0, I32).nullable().optional(),
  // realpath of /sys/class/net/<if>/device.
  device: text(L.path).nullable().optional(),
});

const address = z
  .object({
    name: name(L.ifname),
    link: name(L.ifname),
    ifindex: int(0, I32),
    family,
    address: name(64),
    prefixlen: int(0, 128),
    scope: text(64),
    scopeId: int(0, U32),
    flags,
  })
  .refine((a) => a.family === 'AF_INET6' || a.prefixlen <= 32, { error: 'an IPv4 prefix length is 0–32', path: ['prefixlen'] });

const confFile = z.object({
  // NCCL_CONF_FILE as set (an environment value); open() refuses one past PATH_MAX, which the record then says.
  path: text(L.envValue),
  role: z.enum(['NCCL_CONF_FILE', 'home-passwd', 'home-env', 'etc']),
  content: text(L.confFile).nullable(),
  error: text().nullable(),
});

// The RDMA part (src/model/snapshot/rdma-types.ts). A sysfs value is its text or the errno of the failed read.
const sysfsRead = z.union([text(L.sysfsValue), z.object({ error: text() })]);
const presence = z.object({ path: text(L.path), present: z.boolean() });
const rdmaPort = z.object({
  port: int(0, L.portNumber),
  state: sysfsRead,
  physState: sysfsRead,
  linkLayer: sysfsRead,
  rate: sysfsRead,
  lid: sysfsRead,
  gidCount: int(0, L.gidTable),
  gids: list(z.object({ index: int(0, L.gidTable - 1), gid: sysfsRead, type: sysfsRead, ndev: sysfsRead }), L.gidTable, "a port's GID table, gid_tbl_len"),
});
const rdmaDevice = z.object({
  name: name(L.rdmaDevice),
  classEntryIsSymlink: z.boolean(),
  nodeType: sysfsRead,
  fwVer: sysfsRead,
  nodeGuid: sysfsRead,
  sysImageGuid: sysfsRead,
  hcaType: sysfsRead,
  boardId: sysfsRead,
  device: z.object({
    kind: z.enum(['symlink', 'directory', 'missing', 'other']),
    link: text(L.path).nullable(),
    realpath: text(L.path).nullable(),
    subsystem: text(L.path).nullable(),
    folded: list(z.object({ variant: z.enum(['mergeVfs', 'functionOnly', 'lowDigit']), path: text(L.path), exists: z.boolean(), subsystem: text(L.path).nullable() }), 3, 'one per folding variant'),
  }),
  pci: z
    .object({
      bdf: text(L.path),
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
  pciNetdevs: list(text(L.ifname), L.netdevsPerFunction, 'netdevs of one PCI function'),
  uverbs: text(64).nullable(),
  ports: list(rdmaPort, L.portNumber + 1, 'ports of one device: phys_port_cnt is 8 bits'),
});
const rdmaPart = z
  .object({
    classPresent: z.boolean(),
    devices: list(rdmaDevice, L.rdmaDevices, 'RDMA devices: RDMA_MAX_PORTS'),
    netdevs: dict(
      z.object({
        name: text(L.ifname),
        present: z.boolean(),
        operstate: sysfsRead,
        carrier: sysfsRead.optional(),
        mtu: sysfsRead,
        devPort: sysfsRead,
        devId: sysfsRead,
        master: text(L.ifname).nullable(),
        bondSlaves: list(text(L.ifname), L.links, 'bond members').nullable(),
      }),
      L.links,
      'netdevs',
    ),
    peerMem: list(presence, 64, 'peer-memory paths'),
    modules: list(presence, 64, 'kernel modules'),
    sysModuleKnown: z.boolean(),
    devInfiniband: z.object({ known: z.boolean(), present: z.boolean(), entries: list(text(L.path), 4 * L.rdmaDevices, '/dev/infiniband entries: a few per device') }),
    memlock: z.object({ soft: text(64).nullable(), hard: text(64).nullable(), error: text().nullable() }),
    container: z.object({ detected: z.boolean(), evidence: list(text(), 64, 'container marks') }),
  })
  .refine((r) => r.devices.reduce((n, d) => n + d.ports.length, 0) <= L.rdmaPortsTotal, { error: `more than ${L.rdmaPortsTotal} ports on all devices together (RDMA_MAX_PORTS)`, path: ['devices'] });

// The kernel part (src/model/snapshot/kernel-types.ts). iproute2 objects are kept as
// printed, so only the fields ncclx reads are checked and the rest passes through.
const procRead = z.union([text(L.sysfsValue), z.object({ error: text() })]);
function captured<T extends z.ZodType>(data: T) {
  const base = { argv: list(text(L.path), 64, 'command arguments'), record: text(L.path), from: z.enum(['live', 'recorded', 'proc']) };
  return z.discriminatedUnion('ok', [z.object({ ...base, ok: z.literal(true), data }), z.object({ ...base, ok: z.literal(false), error: text(L.sysfsValue), missing: z.boolean() })]);
}
const ipRouteJson = z.looseObject({
  dst: text(128).optional(),
  table: text(64).optional(),
  type: text(64).optional(),
  dev: text(L.ifname).optional(),
  gateway: text(64).optional(),
  prefsrc: text(64).optional(),
  metric: int(0, U32).optional(),
  nexthops: list(z.looseObject({ gateway: text(64).optional(), dev: text(L.ifname).optional() }), 1024, 'nexthops of one route').optional(),
});
const kernelPart = z.object({
  conf: dict(z.object({ arp_announce: procRead, arp_ignore: procRead, arp_filter: procRead, rp_filter: procRead }), L.links + 2, 'interfaces, all and default'),
  localPortRange: procRead,
  rules: captured(
    list(
      z.looseObject({
        priority: int(0, U32).optional(),
        src: text(64).optional(),
        srclen: int(0, 128).optional(),
        table: text(64).optional(),
        action: text(64).optional(),
        not: z.boolean().optional(),
      }),
      L.rules,
      'policy routing rules',
    ),
  ),
  routes: captured(list(ipRouteJson, L.routes, 'routes')),
  routeTargets: list(
    z.object({
      variable: z.enum(['MASTER_ADDR', 'NCCL_COMM_ID']),
      value: text(L.envValue),
      source: text(L.envValue),
      host: text(L.envValue),
      address: text(64).nullable(),
      unresolved: text(L.envValue + L.text).nullable(),
      route: captured(list(ipRouteJson, 64, 'routes of one lookup')).nullable(),
    }),
    L.resolutions,
    'route lookups',
  ),
  qdiscs: captured(list(z.looseObject({ kind: text(64), dev: text(L.ifname), handle: text(64).optional(), root: z.boolean().optional(), parent: text(64).optional() }), L.qdiscs, 'qdiscs')),
  nft: captured(
    z.object({
      tables: int(0, I32),
      chains: int(0, I32),
      rules: int(0, I32),
      dscpRules: list(
        z.object({ family: text(64), table: text(256), chain: text(256), handle: int(0, Number.MAX_SAFE_INTEGER).nullable(), hook: text(64).nullable(), expr: list(z.unknown(), L.nftExprs, 'expressions of one rule: NFT_RULE_MAXEXPRS') }),
        L.rules,
        'DSCP marking rules',
      ),
      xtRules: int(0, I32),
    }),
  ),
  iptablesMangle: captured(text(L.file)),
  ip6tablesMangle: captured(text(L.file)),
});

const numaNode = int(-1, L.numaNodes - 1);
const pciFunction = z.object({
  bdf: text(64),
  class: text(64),
  vendor: text(64),
  device: text(64),
  numaNode: numaNode.nullable(),
  driver: text(L.path).nullable(),
  netdevs: list(text(L.ifname), L.netdevsPerFunction, 'netdevs of one PCI function'),
});

const topoFunction = z.object({
  bdf: text(64),
  path: list(text(64), L.pciPathDepth, 'components of one sysfs path: PCI bus numbers are 8 bits'),
  class: text(64).nullable(),
  vendor: text(64).nullable(),
  device: text(64).nullable(),
  subsystemVendor: text(64).nullable().optional(),
  subsystemDevice: text(64).nullable().optional(),
  numaNode: numaNode.nullable(),
  maxLinkSpeed: text(64).nullable(),
  maxLinkWidth: int(0, L.linkWidth).nullable(),
  currentLinkSpeed: text(64).nullable(),
  currentLinkWidth: int(0, L.linkWidth).nullable(),
});

/** A cpulist as the kernel prints it (0-55,112-167): CPU numbers below NR_CPUS. */
const cpulist = text(L.sysfsValue).refine((s) => s.split(',').every((part) => part.trim() === '' || (/^\s*\d+(-\d+)?\s*$/.test(part) && part.split('-').every((n) => Number(n) < L.cpus))), { error: `not a cpulist of CPU numbers below ${L.cpus} (NR_CPUS)` });

const unique = (xs: string[]) => new Set(xs).size === xs.length;

// A net plugin library as read from its file (src/probe/net-plugin.ts).
const netPluginLib = z.object({
  path: text(L.path),
  product: text().nullable(),
  version: text().nullable(),
  // Net names a plugin declares (ncclNet_vN.name): a handful.
  netNames: list(text(256), 64, 'net names of one plugin'),
  // ncclNetPlugin_v2 … v12.
  apis: list(int(0, 255), 64, 'plugin API versions'),
  error: text(L.sysfsValue).nullable(),
});

export const nodeSnapshotSchema = z.object({
  schemaVersion: z.literal(SNAPSHOT_SCHEMA_VERSION),
  tool: z.object({ name: z.literal('ncclx'), version: text(64) }),
  capturedAt: text(64),
  root: text(L.path),
  host: z.object({
    hostname: text(L.hostname),
    os: text().nullable(),
    kernel: text().nullable(),
    arch: text(64).nullable(),
    source: text(2 * L.path),
  }),
  network: z.object({
    source: z.enum(['iproute2', 'recorded-iproute2', 'sysfs', 'os.networkInterfaces', 'proc']),
    links: list(link, L.links, 'links'),
    addresses: list(address, L.addresses, 'addresses'),
  }),
  env: z.object({
    process: dict(text(L.envValue), L.envVars, 'environment variables', text(L.envValue)),
    confFiles: list(confFile, L.confFiles, 'NCCL conf files'),
    home: z.object({ passwd: text(L.path).nullable(), env: text(L.path).nullable() }),
  }),
  resolutions: dict(
    z.object({ addresses: list(z.object({ address: text(64), family }), L.resolvedAddresses, 'addresses of one name'), error: text().nullable() }),
    L.resolutions,
    'resolved names',
    text(L.envValue),
  ),
  ncclLibrary: z.object({
    candidates: list(
      z.object({
        path: text(L.path),
        version: text(64).nullable(),
        via: text(L.path),
        versionFrom: z.enum(['binary', 'file name', 'dist-info', 'conda-meta', 'dpkg']).nullable().optional(),
        versionText: text(256).nullable().optional(),
        loadedBy: list(z.enum(['process', 'preload', 'pytorch', 'loader']), 4, 'who loads a library').optional(),
        loadNotes: list(text(), 64, 'notes on one library').optional(),
        static: z.boolean().optional(),
      }),
      L.libraries,
      'libnccl candidates',
    ),
    searched: list(text(L.path), L.libraries, 'directories searched'),
    pythons: list(
      z.object({
        via: text(L.path),
        interpreter: text(L.path),
        real: text(L.path).nullable(),
        prefix: text(L.path),
        venv: z.boolean(),
        version: text(64).nullable(),
        sitePackages: list(text(L.path), 64, 'site-packages of one Python'),
        torch: text(L.path).nullable().optional(),
        note: text().nullable(),
      }),
      L.libraries,
      'Python environments',
    ).optional(),
    notes: list(text(), L.libraries, 'library notes').optional(),
  }),
  warnings: list(z.object({ source: text(L.path), message: text(L.sysfsValue) }), L.warnings, 'probe warnings'),
  rdma: rdmaPart.optional(),
  kernel: kernelPart.optional(),
  netPlugins: z
    .object({
      // NCCL_NET_PLUGIN is a list of at most 14 names (≥ 2.27.3), each tried under two library names.
      lookups: list(z.object({ name: text(L.path), path: text(L.path).nullable(), step: text().nullable() }), 64, 'net plugin lookups'),
      libraries: list(netPluginLib, 64, 'net plugin libraries'),
      elsewhere: list(netPluginLib, L.libraries, 'net plugin libraries elsewhere on the node'),
      asker: text(L.path).nullable(),
      mapped: text(L.path).nullable(),
    })
    .optional(),
  // uid_t is 32 bits; the tools ncclx looks for (ip, tc, nft, …) are a few dozen.
  reader: z.object({ uid: int(0, U32).nullable(), tools: dict(z.boolean(), 256, 'tools', text(256)) }).optional(),
  process: z
    // PID_MAX_LIMIT is 4,194,304 (2^22); the command is /proc/PID/cmdline (ARG_MAX at most).
    .object({ pid: int(1, 4_194_304), command: text(L.envValue), ownRoot: z.boolean(), netns: text(L.path).nullable(), sameNetns: z.boolean(), networkFrom: text(L.path) })
    .optional(),
  pci: z
    .object({
      present: z.boolean(),
      nics: list(pciFunction, L.pciFunctions, 'PCI network functions'),
      gpus: list(pciFunction, L.gpus, 'GPUs: NCCL_TOPO_MAX_NODES'),
      topology: z
        .object({
          functions: list(topoFunction, L.pciFunctions, 'PCI functions'),
          gpus: list(text(64), L.gpus, 'GPUs: NCCL_TOPO_MAX_NODES').refine(unique, { error: 'a GPU is listed twice' }),
          numaNodes: list(z.object({ id: numaNode, cpulist }), L.numaNodes, 'NUMA nodes: CONFIG_NODES_SHIFT'),
          cpu: z.object({ arch: text(64).nullable(), vendor: text(64).nullable(), family: int(0, 0xffff).nullable(), model: int(0, 0xffff).nullable() }),
          nvlink: z.object({ links: list(list(int(0, 255), L.gpus, 'one row per GPU'), L.gpus, 'one row per GPU'), source: text(L.path) }).nullable().optional(),
          nvlinkStatus: z
            .object({
              gpus: list(z.object({ index: int(0, L.gpus - 1), name: text(), links: list(z.object({ link: int(0, L.nvlinks - 1), gbps: z.number().min(0).max(1e10).nullable() }), L.nvlinks, 'NVLinks of one GPU') }), L.gpus, 'GPUs'),
              source: text(L.path),
            })
            .nullable()
            .optional(),
          computeCaps: z.object({ gpus: list(z.object({ bdf: text(64), sm: int(0, 990) }), L.gpus, 'GPUs'), source: text(L.path) }).nullable().optional(),
          topoFiles: list(z.object({ path: text(L.path), text: text(L.file).nullable(), error: text().nullable() }), L.topoFiles, 'NCCL_TOPO_FILE candidates').optional(),
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
  // A key is data (an interface name, a variable): shown cut, so the message stays one short line.
  const where = i.path.length ? i.path.map((k) => (String(k).length > 64 ? `${String(k).slice(0, 61)}...` : String(k))).join('.') : '(top level)';
  return `${where}: ${i.message}`;
}

/** The longest array any field of a snapshot may hold (addresses, links, routes, …): see ./limits.ts. */
const LONGEST_ARRAY = Math.max(SNAPSHOT_LIMITS.links, SNAPSHOT_LIMITS.addresses, SNAPSHOT_LIMITS.routes, SNAPSHOT_LIMITS.rules, SNAPSHOT_LIMITS.qdiscs, SNAPSHOT_LIMITS.envVars, SNAPSHOT_LIMITS.pciFunctions, SNAPSHOT_LIMITS.warnings);

/**
 * The first shape no snapshot has, before the schema walks the document: a
 * value nested deeper than `max` (arrays and objects), or an array longer than
 * any field allows. Walked with an explicit stack: a document 100,000 arrays
 * deep is refused, not a stack overflow, and an array of 72,000 RDMA devices is
 * refused before the schema checks each of them (the schema's own bound on a
 * field's length is checked only after its entries).
 */
export function shapeProblem(data: unknown, max: number = SNAPSHOT_LIMITS.depth): string | null {
  const stack: [unknown, number, string][] = [[data, 0, '']];
  while (stack.length) {
    const [v, depth, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return `${path || '(top level)'}: nested more than ${max} levels deep`;
    if (Array.isArray(v) && v.length > LONGEST_ARRAY) return `${path || '(top level)'}: more than ${LONGEST_ARRAY} entries`;
    for (const [k, x] of Object.entries(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1, path ? `${path}.${k}` : k]);
  }
  return null;
}

/** Validate parsed JSON as a snapshot; throws SnapshotError with a one-line problem. */
export function validateSnapshot(data: unknown, file: string): NodeSnapshot {
  const shape = shapeProblem(data);
  if (shape !== null) throw new SnapshotError(file, `not a valid ncclx snapshot: ${shape}`);
  if (data && typeof data === 'object' && 'schemaVersion' in data && (data as { schemaVersion: unknown }).schemaVersion !== SNAPSHOT_SCHEMA_VERSION) {
    throw new SnapshotError(file, `schema version ${JSON.stringify((data as { schemaVersion: unknown }).schemaVersion)} is not supported (this ncclx reads version ${SNAPSHOT_SCHEMA_VERSION})`);
  }
  const r = nodeSnapshotSchema.safeParse(data);
  if (!r.success) throw new SnapshotError(file, `not a valid ncclx snapshot: ${firstIssue(r.error)}`);
  return r.data as NodeSnapshot;
}
