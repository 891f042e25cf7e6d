// NCCL environment variables ncclx knows, from NCCL's env.rst and the
// parameters in its source (each page of docs/nccl/ names those it reads), plus NCCLX's extra cvars.
// `int` marks NCCL_PARAM integers, parsed C-style (§0.2), with their default.

export interface KnownVar {
  int?: { default: number };
  /** NCCLX only. */
  ncclx?: boolean;
  /** Read by PyTorch, not by NCCL. */
  torch?: boolean;
}

const INT = (d: number): KnownVar => ({ int: { default: d } });
const S: KnownVar = {};

export const KNOWN_VARS: Record<string, KnownVar> = {
  // sockets and bootstrap
  NCCL_SOCKET_IFNAME: S, NCCL_SOCKET_FAMILY: S, NCCL_COMM_ID: S, NCCL_SOCKET_NTHREADS: INT(-2), NCCL_NSOCKS_PERTHREAD: INT(-2),
  NCCL_SOCKET_RETRY_CNT: INT(34), NCCL_SOCKET_RETRY_SLEEP_MSEC: INT(100), NCCL_SOCKET_POLL_TIMEOUT_MSEC: INT(0),
  NCCL_SOCKET_RCVBUF: INT(-1), NCCL_SOCKET_SNDBUF: INT(-1), NCCL_SOCKET_MAGIC: S, NCCL_OOB_NET_ENABLE: INT(0), NCCL_OOB_NET_IFNAME: S,
  NCCL_UID_STAGGER_THRESHOLD: INT(256), NCCL_UID_STAGGER_RATE: INT(7000), NCCL_HOSTID: S, NCCL_RAS_ENABLE: INT(1), NCCL_RAS_ADDR: S,
  NCCL_RAS_TIMEOUT_FACTOR: INT(1), NCCL_CROSS_NIC: INT(2), NCCL_P2P_PXN_LEVEL: INT(2), NCCL_NETDEVS_POLICY: S,
  // IB / RoCE
  NCCL_IB_DISABLE: INT(0), NCCL_IB_HCA: S, NCCL_IB_GID_INDEX: INT(-1), NCCL_IB_ADDR_FAMILY: S, NCCL_IB_ADDR_RANGE: S,
  NCCL_IB_ROCE_VERSION_NUM: INT(2), NCCL_IB_ROUTABLE_FLID_GID_INDEX: INT(1), NCCL_IB_TC: INT(-1), NCCL_IB_SL: INT(-1),
  NCCL_IB_FIFO_TC: INT(-1), NCCL_IB_TIMEOUT: INT(20), NCCL_IB_RETRY_CNT: INT(7), NCCL_IB_MERGE_VFS: INT(1), NCCL_IB_MERGE_NICS: INT(1),
  NCCL_IB_DEVICE_PCI_ORDER: INT(1), NCCL_IB_DATA_DIRECT: INT(1), NCCL_IBVERBS_LIB: S, NCCL_IB_QPS_PER_CONNECTION: INT(1),
  NCCL_IB_SPLIT_DATA_ON_QPS: INT(0), NCCL_IB_AR_THRESHOLD: INT(8192), NCCL_IB_ADAPTIVE_ROUTING: INT(-2), NCCL_IB_PCI_RELAXED_ORDERING: INT(2),
  NCCL_IB_CUDA_SUPPORT: INT(-1), NCCL_IB_USE_INLINE: INT(0), NCCL_IB_ECE_ENABLE: INT(1), NCCL_IB_RETURN_ASYNC_EVENTS: INT(1),
  NCCL_IB_QUERY_PORT_SPEED: INT(1), NCCL_IB_GDR_LEVEL: S, NCCL_IB_MQP_RETRY_ALL: INT(0), NCCL_IB_MQP_RETRY_CNT: INT(34),
  NCCL_IB_MQP_RETRY_SLEEP_MSEC: INT(100), NCCL_IB_WARN_RAIL_LOCAL: INT(0), NCCL_IB_SUBNET_AWARE_ROUTING: INT(0), NCCL_IB_SUBNET_PREFIX_LEN: INT(24),
  NCCL_IB_OOO_RQ: INT(0),
  // network plugins, GDR, topology
  NCCL_NET: S, NCCL_NET_PLUGIN: S, NCCL_TUNER_PLUGIN: S, NCCL_PROFILER_PLUGIN: S, NCCL_ENV_PLUGIN: S, NCCL_NET_GDR_LEVEL: S,
  NCCL_NET_GDR_READ: INT(-2), NCCL_NET_GDR_C2C: INT(1), NCCL_DMABUF_ENABLE: INT(1), NCCL_NET_MERGE_LEVEL: S, NCCL_NET_FORCE_MERGE: S,
  NCCL_NET_MERGE_POLICY: S, NCCL_NET_SHARED_BUFFERS: INT(-2), NCCL_NET_SHARED_COMMS: INT(1), NCCL_NET_FORCE_FLUSH: INT(0),
  NCCL_NET_OVERHEAD: INT(-2), NCCL_NET_DISABLE_INTRA: INT(0), NCCL_NET_OPTIONAL_RECV_COMPLETION: INT(1), NCCL_GDR_FLUSH_DISABLE: INT(0),
  NCCL_GDRCOPY_ENABLE: INT(0), NCCL_GDRCOPY_SYNC_ENABLE: INT(1), NCCL_GDRCOPY_FLUSH_ENABLE: INT(0), NCCL_GDRCOPY_FIFO_ENABLE: INT(1),
  NCCL_TOPO_FILE: S, NCCL_TOPO_DUMP_FILE: S, NCCL_TOPO_DUMP_FILE_RANK: INT(0), NCCL_GRAPH_FILE: S, NCCL_GRAPH_DUMP_FILE: S,
  NCCL_GRAPH_DUMP_FILE_RANK: INT(0), NCCL_GRAPH_MIXING_SUPPORT: INT(1), NCCL_IGNORE_CPU_AFFINITY: INT(0), NCCL_COLLNET_ENABLE: S,
  NCCL_COLLNET_NODE_THRESHOLD: INT(2), NCCL_PXN_DISABLE: INT(0), NCCL_PXN_C2C: INT(0), NCCL_NVB_DISABLE: INT(0),
  NCCL_MNNVL_ENABLE: INT(2), NCCL_MNNVL_UUID: S, NCCL_MNNVL_CLIQUE_ID: S,
  // P2P, SHM, NVLS, memory
  NCCL_P2P_DISABLE: INT(0), NCCL_P2P_LEVEL: S, NCCL_P2P_DIRECT_DISABLE: INT(0), NCCL_P2P_READ_ENABLE: INT(-2), NCCL_P2P_USE_CUDA_MEMCPY: INT(0),
  NCCL_P2P_NET_CHUNKSIZE: INT(131072), NCCL_P2P_PCI_CHUNKSIZE: INT(131072), NCCL_P2P_NVL_CHUNKSIZE: INT(524288), NCCL_P2P_LL_THRESHOLD: INT(16384),
  NCCL_SHM_DISABLE: INT(0), NCCL_SHM_USE_CUDA_MEMCPY: INT(0), NCCL_SHM_MEMCPY_MODE: INT(1), NCCL_SHM_LOCALITY: INT(2),
  NCCL_CUMEM_ENABLE: INT(-2), NCCL_CUMEM_HOST_ENABLE: INT(-1), NCCL_NVLS_ENABLE: INT(2), NCCL_NVLS_CHUNKSIZE: INT(131072), NCCL_NVLS_NCHANNELS: INT(16),
  NCCL_LOCAL_REGISTER: INT(1), NCCL_GRAPH_REGISTER: INT(1), NCCL_LEGACY_CUDA_REGISTER: INT(0), NCCL_WIN_ENABLE: INT(1),
  NCCL_ALLOC_P2P_NET_LL_BUFFERS: INT(0),
  // algorithms and tuning
  NCCL_ALGO: S, NCCL_PROTO: S, NCCL_BUFFSIZE: INT(-2), NCCL_NTHREADS: INT(-2), NCCL_MAX_NCHANNELS: INT(-2), NCCL_MIN_NCHANNELS: INT(-2),
  NCCL_MAX_RINGS: INT(-2), NCCL_MIN_RINGS: INT(-2), NCCL_MAX_P2P_NCHANNELS: INT(64), NCCL_MIN_P2P_NCHANNELS: INT(1),
  NCCL_NCHANNELS_PER_NET_PEER: INT(-1), NCCL_MIN_CTAS: INT(-1), NCCL_MAX_CTAS: INT(-1), NCCL_CGA_CLUSTER_SIZE: INT(-1),
  NCCL_LL_THRESHOLD: INT(-2), NCCL_LL128_THRESHOLD: INT(-2), NCCL_TREE_THRESHOLD: INT(-2), NCCL_SINGLE_RING_THRESHOLD: INT(-2),
  NCCL_LL_BUFFSIZE: INT(-2), NCCL_LL128_BUFFSIZE: INT(-2), NCCL_LL128_NTHREADS: INT(-2), NCCL_CTA_POLICY: S, NCCL_NVLSTREE_MAX_CHUNKSIZE: INT(-2),
  NCCL_WORK_FIFO_DEPTH: INT(65536), NCCL_WORK_FIFO_BYTES: INT(1048576), NCCL_LAUNCH_MODE: S, NCCL_LAUNCH_ORDER_IMPLICIT: INT(0),
  NCCL_LAUNCH_RACE_FATAL: INT(1), NCCL_CHECKS_DISABLE: INT(0), NCCL_CHECK_POINTERS: INT(0), NCCL_COMM_BLOCKING: INT(-1),
  NCCL_RUNTIME_CONNECT: INT(1), NCCL_COMM_SPLIT_SHARE_RESOURCES: INT(-1), NCCL_CREATE_THREAD_CONTEXT: INT(0), NCCL_SET_THREAD_NAME: INT(0),
  NCCL_PROGRESS_APPENDOP_FREQ: INT(8), NCCL_PROXY_APPEND_BATCH_SIZE: INT(16), NCCL_PROXY_DUMP_SIGNAL: INT(-1), NCCL_PROXY_PROFILE: S,
  NCCL_CONNECT_ROUND_MAX_PEERS: INT(128), NCCL_REPORT_CONNECT_PROGRESS: INT(0), NCCL_L1_SHARED_MEMORY_CARVEOUT: INT(0),
  NCCL_IGNORE_DISABLED_P2P: INT(0), NCCL_SET_STACK_SIZE: INT(0), NCCL_SET_CPU_STACK_SIZE: INT(1),
  // logging and config
  NCCL_DEBUG: S, NCCL_DEBUG_SUBSYS: S, NCCL_DEBUG_FILE: S, NCCL_DEBUG_TIMESTAMP_FORMAT: S, NCCL_DEBUG_TIMESTAMP_LEVELS: S, NCCL_CONF_FILE: S,
  NCCL_WARN_ENABLE_DEBUG_INFO: INT(0), NCCL_ABORT_ON_ERROR: INT(0),
  // NCCLX (Meta) cvars ncclx models
  NCCL_SOCKET_IPADDR_PREFIX: { ncclx: true }, NCCL_CLIENT_SOCKET_IFNAME: { ncclx: true }, NCCL_SOCKET_TOS_CONFIG: { ncclx: true, int: { default: -1 } },
  // read by PyTorch, not NCCL (deprecated aliases of TORCH_NCCL_*)
  NCCL_ASYNC_ERROR_HANDLING: { torch: true }, NCCL_BLOCKING_WAIT: { torch: true }, NCCL_DESYNC_DEBUG: { torch: true },
};

/** Prefixes of families too large to list (NCCLX ctran cvars, nccl-tests). */
export const KNOWN_PREFIXES = ['NCCL_CTRAN_', 'NCCL_TESTS_', 'NCCL_COLLTRACE', 'NCCL_SYM_', 'NCCL_RAS_'];

export function isKnownVar(name: string): boolean {
  return name in KNOWN_VARS || KNOWN_PREFIXES.some((p) => name.startsWith(p));
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

const KNOWN_NAMES = Object.keys(KNOWN_VARS);
// Conf files can name thousands of variables and every model run asks again.
const guesses = new Map<string, string | null>();

/** The closest known variable, if close enough to be a typo. */
export function didYouMean(name: string): string | null {
  const cached = guesses.get(name);
  if (cached !== undefined) return cached;
  const limit = Math.max(2, Math.floor(name.length / 6));
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of KNOWN_NAMES) {
    // The distance is at least the difference in length: no need to compute it past the limit.
    if (Math.abs(k.length - name.length) > Math.min(limit, bestD)) continue;
    const d = editDistance(name, k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  const guess = best !== null && bestD <= limit ? best : null;
  if (guesses.size > 10_000) guesses.clear();
  guesses.set(name, guess);
  return guess;
}
