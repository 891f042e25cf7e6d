// The net plugins NCCL may load, and what each one is. Which names NCCL
// dlopens depends on the release and on NCCL_NET_PLUGIN (the model decides:
// src/model/nccl/net-plugin.ts); the probe looks up every name any release
// may try for the values in the environment and conf files, as the dynamic
// loader finds them for the NCCL library that asks (its RPATH/RUNPATH,
// LD_LIBRARY_PATH, /etc/ld.so.cache, system directories), and reads each
// library found: the ncclNetPlugin_vN symbols it exports and what it says it
// is. Plugins installed in well-known directories the loader does not search
// are listed too (a remediation can name them).

import type { LibraryCandidate, NetPluginLib, NetPluginLookup, NetPluginPart } from '../model/snapshot/types.js';
import { modelledLibrary } from '../model/nccl/library.js';
import { readElf } from './elf.js';
import { findLibrary, readLdCache, type Asker, type SearchContext } from './loader.js';
import type { Root } from './root.js';

/** Where the usual net plugins install themselves. */
export const PLUGIN_DIRS = [
  '/opt/amazon/ofi-nccl/lib',
  '/opt/amazon/ofi-nccl/lib64',
  '/opt/aws-ofi-nccl/lib',
  '/opt/amazon/efa/lib',
  '/opt/hpcx/nccl_rdma_sharp_plugin/lib',
  '/usr/local/gib/lib64',
  '/var/lib/tcpxo/lib64',
  '/usr/local/tcpx/lib64',
  '/usr/local/nvidia/lib64',
];

/** A plugin library is small; anything larger is not read for its strings. */
const MAX_PLUGIN = 256 * 1024 * 1024;

/** Every name a release may dlopen for these NCCL_NET_PLUGIN values (the model picks the ones its release tries). */
export function pluginNames(values: string[]): string[] {
  const out = ['libnccl-net.so'];
  for (const v of values) {
    for (const entry of v.split(',')) {
      if (entry === '' || entry.toLowerCase() === 'none') continue;
      out.push(entry, `libnccl-net-${entry}.so`);
    }
  }
  return [...new Set(out)];
}

/** What a plugin says it is, from its strings. */
export function identify(text: string): Pick<NetPluginLib, 'product' | 'version' | 'netNames'> {
  const ofi = /aws-ofi-nccl (\d+\.\d+\.\d+[A-Za-z0-9.~-]*)/.exec(text);
  if (ofi || /AWS Libfabric/.test(text)) {
    const version = ofi?.[1] ?? null;
    const [maj, min] = (version ?? '').split('.').map(Number);
    // aws-ofi-nccl ≤ 1.11 names its transport "AWS Libfabric"; later "Libfabric", and takes NCCL_NET=AWS Libfabric or OFI too.
    const old = version !== null && (maj! < 1 || (maj === 1 && min! <= 11));
    return { product: 'aws-ofi-nccl', version, netNames: old ? ['AWS Libfabric'] : version ? ['Libfabric', 'AWS Libfabric', 'OFI'] : ['Libfabric', 'AWS Libfabric', 'OFI'] };
  }
  const tcpx = /GPUDirectTCPX(?:_v\d+)?/.exec(text);
  if (tcpx) return { product: 'GPUDirectTCPX', version: /GPUDirectTCPX[ _-]v?(\d+\.\d+\.\d+)/.exec(text)?.[1] ?? null, netNames: [tcpx[0]] };
  if (/FasTrak/.test(text)) return { product: 'FasTrak (GPUDirect-TCPXO)', version: /FasTrak[ _-]v?(\d+\.\d+\.\d+)/.exec(text)?.[1] ?? null, netNames: ['FasTrak'] };
  const gib = /\bgIB v?(\d+\.\d+(?:\.\d+)?)/.exec(text);
  if (gib || /\bgIB\b/.test(text)) return { product: 'gIB', version: gib?.[1] ?? null, netNames: ['gIB'] };
  if (/IBext|NCCL RDMA SHARP Plugin/.test(text)) return { product: 'nccl-rdma-sharp-plugins (HPC-X)', version: /nccl-rdma-sharp-plugins[ -]v?(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null, netNames: ['IBext', 'UCX', 'UCX-RMA'].filter((n) => text.includes(n)) };
  return { product: null, version: null, netNames: [] };
}

export function readPlugin(root: Root, path: string): NetPluginLib {
  const buf = root.readBytes(path, MAX_PLUGIN);
  if (!buf) return { path, product: null, version: null, netNames: [], apis: [], error: root.exists(path) ? `unreadable or larger than ${MAX_PLUGIN / 2 ** 20} MiB` : 'ENOENT' };
  const text = buf.toString('latin1');
  const apis = [...new Set([...text.matchAll(/ncclNetPlugin_v(\d{1,2})\b/g)].map((m) => Number(m[1])))].sort((a, b) => b - a);
  return { path, ...identify(text), apis, error: null };
}

function askerOf(root: Root, c: LibraryCandidate | undefined): Asker | null {
  if (!c) return null;
  const elf = readElf(root.path(c.path));
  return { path: c.path, rpath: elf?.dynamic?.rpath ?? null, runpath: elf?.dynamic?.runpath ?? null };
}

export function probeNetPlugins(root: Root, env: Record<string, string | undefined>, confValues: string[], library: { candidates: LibraryCandidate[] }, mapped: string | null = null): NetPluginPart {
  const ctx: SearchContext = { root, ldLibraryPath: env['LD_LIBRARY_PATH'], cache: readLdCache(root) };
  const asker = askerOf(root, modelledLibrary(library)?.candidate);
  const values = [env['NCCL_NET_PLUGIN'], ...confValues].filter((v): v is string => v !== undefined);
  const lookups: NetPluginLookup[] = pluginNames(values).map((name) => {
    const f = findLibrary(name, ctx, asker);
    return { name, path: f?.path ?? null, step: f?.step ?? null };
  });
  const found = [...new Set([...lookups.map((l) => l.path).filter((p): p is string => p !== null), ...(mapped ? [mapped] : [])])];
  const libraries = found.map((p) => readPlugin(root, p));
  const elsewhere: NetPluginLib[] = [];
  for (const dir of PLUGIN_DIRS) {
    for (const n of root.list(dir).filter((x) => /^libnccl-net[^/]*\.so$/.test(x))) {
      const p = `${dir}/${n}`;
      if (!found.includes(p) && !root.isDir(p)) elsewhere.push(readPlugin(root, p));
    }
  }
  return { lookups, libraries, elsewhere, asker: asker?.path ?? null, mapped };
}
