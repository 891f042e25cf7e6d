// The problems an NCCL log shows, by signature: the WARN texts NCCL prints
// (all releases' wordings, docs/nccl/socket.md §6; docs/nccl/ib.md; docs/nccl/qos.md §3; docs/nccl/net-plugins.md; docs/nccl/topology.md §3) and the
// INFO lines that mean trouble (the silent fallback to sockets, the error
// trace `file:line -> code`, the last retry of a connect). Each says
// what it means, its usual causes on the node (field-reports.json) and what
// to check next. Pure.

import { isLinkLocal6, privateKind } from '../nccl/iface-kind.js';

export type ProblemSeverity = 'error' | 'warn';

export interface Signature {
  id: string;
  severity: ProblemSeverity;
  title: string;
  meaning: string;
  causes: string[];
  next: string[];
  /** field-reports.json ids this signature is seen in. */
  reports: string[];
}

export interface ProblemMatch {
  signature: Signature;
  /** The part that tells occurrences apart (a completion status, an errno text); '' when none. */
  detail: string;
  /** What one occurrence names that an engineer compares across occurrences (a completion's peer, GIDs, device). */
  facts?: ProblemFacts;
}

/**
 * Per occurrence: `peer`, `localGid`, `remoteGid`, `device` of an IB completion error; `message`: PyTorch's line
 * after its `NCCL error in:` (`ncclInternalError: Internal check failed.`, line.ts torchResultLine), which the
 * collector adds.
 */
export type ProblemFacts = Partial<Record<'peer' | 'localGid' | 'remoteGid' | 'device' | 'message', string>>;

/** A completion line's peer, GIDs and HCA (net_ib.cc: `from peer %s<%d> … localGid %s remoteGids %s hca %s`). */
function completionFacts(msg: string): ProblemFacts | undefined {
  const f: ProblemFacts = {};
  const peer = /from peer (\S+?)<\d+>/.exec(msg);
  if (peer) f.peer = peer[1]!;
  const local = / localGid (\S+)/.exec(msg);
  if (local) f.localGid = local[1]!;
  const remote = / remoteGids? (\S+)/.exec(msg);
  if (remote) f.remoteGid = remote[1]!;
  const dev = / hca (\S+)/.exec(msg);
  if (dev) f.device = dev[1]!;
  return Object.keys(f).length ? f : undefined;
}

const WC_STATUS: Record<number, string> = {
  1: 'IBV_WC_LOC_LEN_ERR', 2: 'IBV_WC_LOC_QP_OP_ERR', 3: 'IBV_WC_LOC_EEC_OP_ERR', 4: 'IBV_WC_LOC_PROT_ERR', 5: 'IBV_WC_WR_FLUSH_ERR',
  6: 'IBV_WC_MW_BIND_ERR', 7: 'IBV_WC_BAD_RESP_ERR', 8: 'IBV_WC_LOC_ACCESS_ERR', 9: 'IBV_WC_REM_INV_REQ_ERR', 10: 'IBV_WC_REM_ACCESS_ERR',
  11: 'IBV_WC_REM_OP_ERR', 12: 'IBV_WC_RETRY_EXC_ERR', 13: 'IBV_WC_RNR_RETRY_EXC_ERR', 14: 'IBV_WC_LOC_RDD_VIOL_ERR', 15: 'IBV_WC_REM_INV_RD_REQ_ERR',
  16: 'IBV_WC_REM_ABORT_ERR', 17: 'IBV_WC_INV_EECN_ERR', 18: 'IBV_WC_INV_EEC_STATE_ERR', 19: 'IBV_WC_FATAL_ERR', 20: 'IBV_WC_RESP_TIMEOUT_ERR', 21: 'IBV_WC_GENERAL_ERR',
};

const NEXT_IB_PATH = [
  'run `ncclx doctor` on both hosts: GID index (IB-0xx), ARP/rp_filter on multi-rail subnets (ARP-xxx), routes between rails',
  'compare the GID each side used (`ncclx ib`, or the log\'s `GID n` lines) and `ncclx compare` the nodes\' snapshots',
  'check the port and switch counters (`ibstat`, `ethtool -S <netdev> | grep -i -e pause -e discard`) and PFC/ECN on the fabric',
];

function completion(status: number): Signature {
  const name = WC_STATUS[status] ?? `status ${status}`;
  const common = { id: `ib-completion-${status}`, severity: 'error' as const, reports: [] as string[] };
  switch (status) {
    case 12:
      return {
        ...common,
        title: `IB completion error 12 (${name})`,
        meaning: 'a queue pair exhausted its transport retries without an acknowledgement: the peer never answered on the RDMA path',
        causes: [
          'the RoCE GID index points at an address the peer cannot reach (RoCE v1, IPv6 link-local, another pod\'s address, a GID that differs between nodes)',
          'several RDMA NICs in one subnet answer each other\'s ARP (arp_ignore/arp_announce unset) or routes send replies out of the wrong rail',
          'packet loss on the fabric (RoCE without working PFC/ECN), an MTU or VLAN mismatch, a link or port down',
          'the peer process or node died first (look for its earlier WARN)',
        ],
        next: NEXT_IB_PATH,
        reports: ['mc-gid-default-0-pre-2.21', 'mc-rdma-netdev-no-ipv4-ipv6only-gids', 'mc-roce-8nic-one-24', 'mc-same-ip-two-ndevs-vxlan'],
      };
    case 13:
      return { ...common, title: `IB completion error 13 (${name})`, meaning: 'the receiver had no receive buffer posted for longer than the RNR retries allow', causes: ['the peer process stalled or died', 'a hung or very slow peer (GPU fault, CPU starvation)'], next: ['find the peer\'s own first WARN in its log', 'check the peer node for GPU (Xid) or OOM errors'] };
    case 5:
      return { ...common, severity: 'warn', title: `IB completion error 5 (${name})`, meaning: 'work requests were flushed because the queue pair had already gone to the error state: a consequence, not the cause', causes: ['an earlier completion error on the same connection', 'the communicator was aborted'], next: ['look for the first completion error before this one, on either side'] };
    case 4:
    case 8:
    case 10:
      return { ...common, title: `IB completion error ${status} (${name})`, meaning: 'a memory registration or access check failed on the RDMA operation', causes: ['GPUDirect RDMA memory registration not usable (peer-memory module or DMA-BUF missing)', 'a driver/firmware mismatch between the nodes', 'memlock limit too low in a container'], next: ['`ncclx doctor` GPUDirect RDMA checks (GDR-xxx) on both nodes', 'try `NCCL_NET_GDR_LEVEL=LOC` once to confirm a GPUDirect problem'] };
    default:
      return { ...common, title: `IB completion error ${status} (${name})`, meaning: 'an RDMA operation completed with an error status', causes: ['a fabric, driver or peer failure'], next: NEXT_IB_PATH };
  }
}

const S = {
  noSocketIf: {
    id: 'no-socket-interface', severity: 'error', title: 'no usable socket interface',
    meaning: 'NCCL found no interface to bind: bootstrap, the socket transport or the IB transport\'s OOB socket cannot start',
    causes: ['NCCL_SOCKET_IFNAME matches no interface that is UP with an address (a typo, an IP address instead of a name, a name from another node)', 'with NCCL_COMM_ID set, no local interface is in the subnet of its address', 'the container sees only lo, or only IPv6 link-local addresses'],
    next: ['`ncclx explain` on this node shows which interfaces each consumer would pick and why', '`ip -br addr` in the job\'s container'],
    reports: ['mc-ip-in-socket-ifname', 'mc-missing-ifname-garbage-family', 'mc-docker-bridge-container'],
  },
  ibNoDevice: {
    id: 'ib-no-device', severity: 'warn', title: 'NET/IB : No device found — NCCL falls back to sockets',
    meaning: 'the IB transport found no usable RDMA port, so NCCL uses TCP sockets without a warning: every inter-node byte goes over the socket transport',
    causes: ['NCCL_IB_HCA matches no device (a typo, names from another node, `=` with a wrong port)', 'no port is ACTIVE, or its link layer is neither InfiniBand nor Ethernet', 'the container has no /dev/infiniband or libibverbs', 'NCCL_IB_DISABLE=1', 'the fabric is one only a net plugin drives (AWS EFA: aws-ofi-nccl; Google gIB, TCPX/TCPXO) and the plugin did not load', 'the node has no RDMA device at all: sockets are all there is'],
    next: ['`ncclx ib` on this node: every device and port, and why NCCL keeps or drops it', 'set NCCL_NET=IB to make the fallback an error instead of a silent slowdown'],
    reports: ['mc-ib-hca-down-device', 'mc-ib-hca-prefix-mlx5_1-matches-mlx5_1x'],
  },
  torch: {
    id: 'torch-nccl-error', severity: 'error', title: 'PyTorch: an NCCL call failed',
    meaning: 'PyTorch reports the result an NCCL call returned (`NCCL error in: file:line, <result>, NCCL version X`); NCCL\'s own WARN lines before it say why, and PyTorch prints NCCL\'s last error under it (`Last error:`)',
    causes: [
      '`unhandled system error`: a socket, shared-memory or IB call failed on this node (look for its WARN: interfaces, /dev/shm size, GIDs)',
      '`remote process exited or there was a network error`: another rank died first, or the network between the nodes dropped',
      '`internal error` / `invalid usage`: a setup NCCL rejects (mismatched versions, two ranks on one GPU, a bad NCCL_* value)',
    ],
    next: ['run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and read the first WARN of each host', 'read the `Last error:` line PyTorch prints under this one'], reports: [],
  },
  nvls: {
    id: 'nvls', severity: 'error', title: 'NVLink SHARP (NVLS) failed',
    meaning: 'NCCL could not set up NVLink SHARP multicast memory for the NVSwitch reductions; the communicator fails although the GPUs have memory left',
    causes: ['the NVSwitches\' multicast objects are used up (other jobs on the same NVLink domain, or many communicators)', 'the Fabric Manager (or IMEX on multi-node NVLink) not running or in a bad state', 'a driver or Fabric Manager version mismatch'],
    next: ['run with NCCL_NVLS_ENABLE=0 to go without NVLS', '`systemctl status nvidia-fabricmanager` and `nvidia-smi -q | grep -i -A3 fabric` on the node'], reports: [],
  },
  ringLoop: {
    id: 'ring-no-loop', severity: 'error', title: 'the ranks built different rings',
    meaning: 'a ring NCCL computed does not come back to its start: the ranks did not compute the same graph, so they cannot agree on their neighbours',
    causes: ['different NCCL versions or NCCL_* settings (NCCL_ALGO, NCCL_CROSS_NIC, NCCL_MIN_NCHANNELS …) between ranks', 'a topology that differs between nodes (NCCL_TOPO_FILE / NCCL_GRAPH_FILE on some only, a NIC or GPU missing)', 'NCCL 2.19.3 reading an uninitialised link speed (fixed in 2.20)'],
    next: ['the asymmetries ncclx lists between hosts (version, IB devices)', 'the same NCCL_* environment on every node (`ncclx log`\'s env per host)', 'upgrade from 2.19.3'], reports: [],
  },
  regMr: {
    id: 'ib-reg-mr', severity: 'error', title: 'RDMA memory registration failed',
    meaning: 'the HCA could not register a buffer (ibv_reg_mr, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr) or allocate a protection domain: the IB connection fails',
    causes: ['memlock limit too low (ulimit -l) in the container', 'GPU memory registered without GPUDirect RDMA support: nvidia-peermem not loaded, or DMA-BUF unsupported by the kernel or driver (`ibv_reg_dmabuf_mr … Operation not supported`)', 'too many registrations for the HCA'],
    next: ['`ulimit -l` in the job (unlimited expected)', '`ncclx doctor` GPUDirect RDMA checks (nvidia-peermem, DMA-BUF)', 'NCCL_DMABUF_ENABLE=0 to fall back to nvidia-peermem'], reports: [],
  },
  graphFile: {
    id: 'graph-file-mismatch', severity: 'error', title: 'a graph or topology file names devices this node lacks',
    meaning: 'NCCL read channels from an XML graph (NCCL_GRAPH_FILE) or topology (NCCL_TOPO_FILE) that name a device this node does not have',
    causes: ['a graph or topology file written for another machine type or VM size (cloud images set NCCL_TOPO_FILE)', 'a device missing on this node (a NIC down, a GPU hidden by CUDA_VISIBLE_DEVICES)'],
    next: ['`ncclx log`\'s env per host: NCCL_GRAPH_FILE / NCCL_TOPO_FILE', 'use the file made for this machine type, or unset it'], reports: [],
  },
  gdrNoModule: {
    id: 'gdr-no-module', severity: 'warn', title: 'GPUDirect RDMA is off: no peer-memory module',
    meaning: 'NCCL found no GPUDirect RDMA kernel support (nvidia-peermem / nv_peer_mem, or DMA-BUF) for the HCA, so network transfers go through host memory: it works, much slower',
    causes: ['nvidia-peermem not loaded (`modprobe nvidia-peermem`), or the container does not see it', 'a kernel or driver without DMA-BUF support'],
    next: ['`ncclx doctor` GPUDirect RDMA checks on the node', '`lsmod | grep -e nvidia_peermem -e nv_peer_mem`'], reports: [],
  },
  pluginRejected: {
    id: 'net-plugin-rejected', severity: 'warn', title: 'a net plugin was found but not used',
    meaning: 'NCCL found libnccl-net.so but no plugin symbol of an API version it supports, so it uses its internal IB or socket transport instead of the plugin (on AWS EFA or GCP that means sockets)',
    causes: ['the plugin is built for another NCCL API version (too old a plugin for this NCCL, or the reverse)', 'an unrelated libnccl-net.so earlier on LD_LIBRARY_PATH'],
    next: ['install the plugin release built for this NCCL version', '`NCCL_NET_PLUGIN` / LD_LIBRARY_PATH: which libnccl-net.so is loaded (`NCCL_DEBUG_SUBSYS=INIT,NET`)'], reports: [],
  },
  verbs: {
    id: 'libibverbs-missing', severity: 'warn', title: 'libibverbs could not be loaded',
    meaning: 'NCCL could not dlopen libibverbs.so, so the IB transport is unavailable and NCCL uses sockets',
    causes: ['the container image lacks rdma-core / libibverbs1', 'LD_LIBRARY_PATH hides the system library'],
    next: ['install libibverbs1 (Debian/Ubuntu) or rdma-core in the image', '`ldconfig -p | grep libibverbs`'], reports: [],
  },
  modifyQp: {
    id: 'ibv-modify-qp', severity: 'error', title: 'ibv_modify_qp failed',
    meaning: 'a queue pair could not be moved to RTR/RTS: the connection to the peer\'s GID cannot be set up',
    causes: ['the two ends are on different subnets with no route (cross-rail QP on per-NIC subnets, direct-connect meshes)', 'the GID index selects an address the peer cannot reach, or differs between nodes', 'a RoCE GID without IPv4, or an invalid GID index (`Invalid argument`)'],
    next: ['`ncclx doctor` on both nodes (IB GID checks, routes between rails)', '`ncclx compare` the nodes: GID index and subnets per rail', 'with per-NIC subnets keep traffic rail-aligned (PXN on, NCCL_CROSS_NIC=0)'],
    reports: ['mc-rccl-per-nic-subnet-crossrail', 'mc-direct-connect-mesh-per-link-subnets', 'mc-socket-direct-two-pf-same-subnet'],
  },
  createQp: {
    id: 'ibv-create-qp', severity: 'error', title: 'ibv_create_qp failed',
    meaning: 'the HCA refused to create a queue pair',
    causes: ['memlock limit too low (ulimit -l) in the container', 'too many QPs for the device (many communicators or NCCL_IB_QPS_PER_CONNECTION)', 'the device is in a bad state'],
    next: ['`ulimit -l` in the job (unlimited expected)', '`ncclx doctor` RDMA checks'], reports: [],
  },
  createCq: {
    id: 'ibv-create-cq', severity: 'error', title: 'ibv_create_cq failed',
    meaning: 'the HCA refused to create a completion queue while NCCL set up a connection: the connection, and the communicator, fail',
    causes: ['memlock limit too low (ulimit -l) in the container (`Cannot allocate memory`)', 'too many completion queues for the device (many communicators, NCCL_IB_QPS_PER_CONNECTION)', 'the device is in a bad state, or the driver and firmware disagree'],
    next: ['`ulimit -l` in the job (unlimited expected)', '`ncclx doctor` RDMA checks', '`ibv_devinfo -v` for the device\'s max_cq / max_cqe'], reports: [],
  },
  ibOpenDevice: {
    id: 'ib-open-device', severity: 'warn', title: 'an RDMA device could not be opened',
    meaning: 'libibverbs lists the device but opening it failed: NCCL skips it and goes on with the others — fewer rails, or the socket transport when none is left (then `ib-no-device` says so)',
    causes: ['a container that sees /sys/class/infiniband but not the /dev/infiniband/uverbs* node of that device (only some devices passed in)', 'a device the process may not use (a VF or SF of another tenant, a representor)', 'the device is in a bad state or its driver is reloading'],
    next: ['`ls -l /dev/infiniband` in the job\'s container against `ibv_devices`', '`ncclx ib` on the node: every device and why NCCL keeps or drops it', 'keep NCCL to the devices the job may use with NCCL_IB_HCA (`ncclx env`)'],
    reports: [],
  },
  ibPciPath: {
    id: 'ib-pci-path', severity: 'warn', title: 'an RDMA device has no PCI path',
    meaning: 'NCCL could not resolve /sys/class/infiniband/<dev>/device to a PCI device and goes on without it: the NIC sits outside the topology (no GPU–NIC locality, no GPUDirect RDMA through it); expected for software RDMA (soft-RoCE rxe, siw)',
    causes: ['a software RDMA device (rxe, siw) with no PCI device behind it', 'a container or VM whose /sys does not show the device\'s PCI parent', 'a virtual or para-virtual NIC'],
    next: ['`readlink -f /sys/class/infiniband/<dev>/device` on the node', '`ncclx ib` and `ncclx topo` on the node: where the NIC lands in the topology', 'if "Could not find NET with id" or a graph fallback follows, see those problems'],
    reports: [],
  },
  socketFamily: {
    id: 'socket-address-family', severity: 'error', title: 'connecting to an address that was never set',
    meaning: 'NCCL tried to connect to an address whose family is neither IPv4 nor IPv6 (a garbage number): the address was never filled in, usually because an interface lookup found nothing and this code path went on; NCCL fails with an internal error',
    causes: ['NCCL_SOCKET_IFNAME (or NCCL_OOB_NET_IFNAME) names an interface that does not exist on this node: a typo, a name from another node, an IP address', 'NCCL_SOCKET_IFNAME differs between nodes, so a peer sent an address it never set', 'family 1 (AF_UNIX): a single-node job with P2P and SHM disabled handing a local address to the socket transport (NVIDIA/nccl#2057)'],
    next: ['`ncclx explain` on every node: what NCCL_SOCKET_IFNAME matches there', 'set a name or prefix that exists on every node, or exclusions such as `^lo,docker` (`ncclx env`)'],
    reports: ['mc-missing-ifname-garbage-family', 'mc-ip-in-socket-ifname'],
  },
  wrongType: {
    id: 'socket-wrong-type', severity: 'error', title: 'a peer connected to the wrong kind of NCCL socket',
    meaning: 'an NCCL socket accepted a connection whose handshake names another socket type (1 bootstrap, 2 proxy, 3 NET/Socket, 4 NET/IB, 5 RAS): the two ends disagree on what they connect, and NCCL fails the connection',
    causes: ['the nodes use different network transports: `wrong type 4 != 3` is a peer on NET/IB reaching a node that uses NET/Socket (IB missing or unusable there)', 'two jobs or communicators on one address and port', 'different NCCL versions between ranks'],
    next: ['compare `Using network` and `NET/IB : Using` across the hosts (asymmetries below); `ncclx ib` on the host that uses sockets', 'run one NCCL version on every node'],
    reports: ['mc-ib-picked-not-on-all-nodes'],
  },
  wrongMagic: {
    id: 'socket-wrong-magic', severity: 'warn', title: 'a stray connection to an NCCL socket',
    meaning: 'a connection to an NCCL socket did not start with the expected magic number: NCCL drops it and keeps listening, so it fails nothing by itself',
    causes: ['a port scanner or health check probing the job\'s ports', 'a rank of another job or of an earlier run connecting to a reused address and port (a stale unique id or NCCL_COMM_ID)'],
    next: ['if the job hangs, look for the rank that should have connected', 'use a distinct port or unique id per job'], reports: [],
  },
  nvmlBusId: {
    id: 'nvml-gpu-not-found', severity: 'error', title: 'NVML does not know the GPU',
    meaning: 'NCCL asked NVML for the GPU CUDA gave it, by PCI bus id, and NVML did not find it: NCCL cannot read the GPU\'s topology and the communicator fails',
    causes: ['a container where CUDA sees the GPU but NVML does not: NVIDIA_VISIBLE_DEVICES and the devices passed in differ, or the image carries its own libnvidia-ml.so', 'CUDA_VISIBLE_DEVICES or MIG selecting a device whose bus id NVML lists differently (MIG instances, vGPU, passthrough)', 'a driver and NVML library of different versions'],
    next: ['`nvidia-smi --query-gpu=index,pci.bus_id --format=csv` in the job against the `busId` of the rank lines', 'check CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES and the container runtime\'s GPU options', '`nvidia-smi -q | grep -i -A2 mig`'],
    reports: [],
  },
  connect: {
    id: 'socket-connect', severity: 'error', title: 'socket connect failed',
    meaning: 'a TCP connection to a peer (bootstrap or socket transport) failed',
    causes: [
      'the address NCCL advertised is not reachable from the peer (docker0, a NAT address, loopback, the wrong subnet)',
      '`No route to host` / `Network is unreachable`: no route from this node to the peer\'s subnet, the peer host down or not answering ARP, or a host firewall rejecting with icmp-host-prohibited (firewalld\'s default)',
      '`Connection refused`: nothing listens on that port — the peer process died or has not started, or a firewall rejects with a TCP reset',
      'a firewall drops the ephemeral ports NCCL uses',
    ],
    next: ['`ncclx explain` on both nodes: the interface and address each advertises', 'from the peer: `nc -vz <address> <port>`; `ip route get <address>` on this node', 'check that MASTER_ADDR / NCCL_COMM_ID is the address other nodes reach'],
    reports: ['mc-docker-bridge-container', 'mc-exclusion-readmits-lo', 'mc-bgp-unnumbered-lo32'],
  },
  timeout: {
    id: 'socket-timeout', severity: 'error', title: 'socket connect or accept timed out',
    meaning: 'NCCL retried a TCP connection until its timeout: the peer address is unreachable or filtered',
    causes: ['asymmetric interfaces: one host advertised an address the others cannot route to', 'a firewall silently dropping packets', 'a peer that never started'],
    next: ['compare the bootstrap and socket interfaces across hosts (asymmetries below)', '`ncclx explain` on the host whose address timed out'],
    reports: ['mc-overlapping-20-two-nics', 'mc-ib-picked-not-on-all-nodes'],
  },
  peerClosed: {
    id: 'peer-closed', severity: 'error', title: 'connection closed by the remote peer',
    meaning: 'the peer closed its socket: it most likely failed or exited first',
    causes: [
      'the peer rank crashed or aborted (its own log has the first error)',
      'an out-of-memory kill or a scheduler preemption on the peer',
      '`Connection reset by peer` / `Broken pipe`: the peer process was killed with the connection open, or a firewall or NAT dropped the connection\'s state and reset it',
    ],
    next: ['find the earliest WARN across all hosts: that host failed first', 'check the peer node\'s kernel log for OOM kills'], reports: [],
  },
  duplicateRank: {
    id: 'bootstrap-duplicate-rank', severity: 'error', title: 'bootstrap: a rank checked in twice',
    meaning: 'two processes claimed the same rank, or two jobs share one NCCL_COMM_ID / unique id',
    causes: ['RANK/LOCAL_RANK computed wrongly by the launcher', 'two jobs with the same MASTER_ADDR:MASTER_PORT or NCCL_COMM_ID', 'a restarted process rejoined an old bootstrap'],
    next: ['check the launcher\'s rank variables for every process', 'use a distinct port per job'], reports: [],
  },
  bootstrapMismatch: {
    id: 'bootstrap-mismatch', severity: 'error', title: 'bootstrap: ranks disagree on the job size',
    meaning: 'processes joined one bootstrap root with different numbers of ranks',
    causes: ['WORLD_SIZE differs between processes', 'two jobs share one root address'], next: ['check WORLD_SIZE/nranks for every process', 'use a distinct port per job'], reports: [],
  },
  shm: {
    id: 'shm', severity: 'error', title: 'shared memory failure',
    meaning: 'NCCL could not create, size or map a shared-memory segment for intra-node transfers',
    causes: [
      '/dev/shm too small in the container (Docker\'s default is 64 MiB)',
      '/dev/shm not shared between the processes of one node: the segment another rank created is not there for this one (`Call to open failed: No such file or directory`) — ranks of one node in separate containers or IPC namespaces',
      'the rank that created the segment already exited',
    ],
    next: ['run the container with `--shm-size=1g` or `--ipc=host`', '`df -h /dev/shm` inside the job'], reports: [],
  },
  cudaIpc: {
    id: 'cuda-ipc', severity: 'error', title: 'CUDA IPC / P2P handle failure',
    meaning: 'a process could not map another GPU\'s memory on the same node',
    causes: ['processes in different containers or PID namespaces', 'P2P not supported between the GPUs (virtualised or across a CPU link)', 'cuMem/fabric handles not usable (IMEX, driver mismatch)'],
    next: ['share the IPC/PID namespace (`--ipc=host`)', 'try NCCL_P2P_DISABLE=1 once to confirm', 'NCCL_CUMEM_ENABLE=0 to fall back to legacy IPC'], reports: [],
  },
  netNotFound: {
    id: 'net-id-not-found', severity: 'error', title: 'Could not find NET with id',
    meaning: 'the topology refers to a network device that NCCL did not register (a fused or virtual NIC the topology cannot place)',
    causes: ['NICs fused (NCCL_NET_MERGE_LEVEL, dual-port or multi-function NICs) whose PCI paths NCCL cannot resolve', 'an NCCL_TOPO_FILE from another node', 'a net plugin whose devices do not match the topology'],
    next: ['`ncclx ib` (merge and PCI path of every port)', 'try NCCL_NET_MERGE_LEVEL=LOC or NCCL_IB_MERGE_NICS=0 once'], reports: [],
  },
  gid: {
    id: 'gid-query', severity: 'error', title: 'GID query failed',
    meaning: 'NCCL could not read the RoCE GID table or a GID type for a port',
    causes: ['the container sees GID entries of other namespaces (reads fail with EINVAL)', 'the GID table changed while the job ran (an address was added or removed)', 'NCCL_IB_GID_INDEX beyond the table'],
    next: ['`ncclx ib gids` in the job\'s container', 'set NCCL_IB_GID_INDEX to the RoCE v2 IPv4 entry that exists on every node (`ncclx env`)'],
    reports: ['mc-container-gid-einval'],
  },
  network: {
    id: 'network-not-found', severity: 'error', title: 'the requested network transport is not available',
    meaning: 'NCCL_NET (or the communicator config) names a transport that did not initialise or reported no devices',
    causes: ['NCCL_NET=IB with no usable RDMA port', 'a plugin named in NCCL_NET_PLUGIN / NCCL_NET is not installed, or is installed but could not be loaded (`net-plugin-rejected`: a GLIBC version, an undefined symbol)'],
    next: ['`ncclx ib` for the IB transport', 'check the plugin library path (`NET/Plugin` lines above)'], reports: [],
  },
  version: {
    id: 'version-mismatch', severity: 'error', title: 'NCCL versions differ between ranks',
    meaning: 'ranks of one communicator run different NCCL releases, which NCCL refuses (or hangs on)',
    causes: ['nodes with different container images or wheels'], next: ['run one NCCL version on every node (see the asymmetries)'], reports: [],
  },
  asyncEvent: {
    id: 'ib-async-event', severity: 'error', title: 'IB asynchronous event',
    meaning: 'the HCA reported an event: a port went down, a P_Key changed or a QP/CQ failed',
    causes: ['a link flap or a cable/switch problem', 'subnet manager changes (P_Key, LID)'], next: ['`ibstat` and the switch port logs at the time of the event'], reports: [],
  },
  incompatible: {
    id: 'ib-incompatible-devices', severity: 'error', title: 'IB devices of different kinds mixed',
    meaning: 'NCCL refuses to connect or merge an InfiniBand port with a RoCE port',
    causes: ['NCCL_IB_HCA selects both IB and RoCE ports', 'nodes with different link layers on the same rail'],
    next: ['restrict NCCL_IB_HCA to one link layer (`ncclx env`)', '`ncclx compare` the nodes'], reports: ['mc-different-hca-names-per-node'],
  },
  duplicateGpu: {
    id: 'duplicate-gpu', severity: 'error', title: 'two ranks on one GPU',
    meaning: 'two ranks of one communicator use the same GPU (NCCL compares their bus ids at init and refuses)',
    causes: ['each process does not select its own GPU (no torch.cuda.set_device(LOCAL_RANK), or LOCAL_RANK wrong)', 'CUDA_VISIBLE_DEVICES gives every process the same single GPU', 'more processes per node than GPUs'],
    next: ['print each rank\'s LOCAL_RANK, CUDA_VISIBLE_DEVICES and current device', 'check the launcher\'s processes per node against `nvidia-smi -L`'], reports: [],
  },
  graphFallback: {
    id: 'graph-search-fallback', severity: 'error', title: 'graph search failed: simple order',
    meaning: 'NCCL\'s topology search found no path for a pattern (ring, tree…) and fell back to one channel in a simple order: low bandwidth at best; in 2.21.5–2.28.x the fallback names NET 0, which may not exist ("Could not find NET with id 0", NVIDIA/nccl#1748)',
    causes: ['NICs that sit off the PCI tree (a container without the host\'s /sys), fused into a virtual NIC', 'an NCCL_TOPO_FILE that does not match the node', 'GPUs or NICs hidden from some ranks (CUDA_VISIBLE_DEVICES, NCCL_IB_HCA) so the nodes differ'],
    next: ['`ncclx topo` and `ncclx ib` on the node (IB-011, IB-036)', 'rerun with NCCL_DEBUG_SUBSYS=GRAPH to see the search'], reports: [],
  },
  proxy: {
    id: 'proxy-failure', severity: 'error', title: 'a proxy operation failed',
    meaning: 'the proxy thread could not carry out a connection or transfer for a rank, or its service thread lost a local rank\'s connection (`[Service thread]`): a consequence, whose cause is the WARN before it on this host or its peer',
    causes: [
      'a failed network connection (a completion error, ibv_modify_qp, a socket connect) just before',
      'a local rank exited or aborted, closing its socket to the proxy (`Could not receive type from localRank …`)',
    ],
    next: ['read the first WARN on this host and on the peer it names', 'when a local rank went away, find why in that process\'s own output'], reports: [],
  },
  ifaceLinkLocal: {
    id: 'iface-link-local', severity: 'warn', title: 'NCCL uses an IPv6 link-local address',
    meaning: 'the interface NCCL chose has only an IPv6 link-local address (fe80::), which reaches the local link only: ranks on other nodes cannot connect, and bootstrap or the first connection hangs until it times out',
    causes: ['NCCL_SOCKET_IFNAME unset, and the first interface NCCL finds is a tunnel or an IPv6-only link (ip6tnl0, an IPoIB port without IPv4)', 'NCCL_SOCKET_FAMILY=AF_INET6 with no routable IPv6 address', 'the container sees the data interface without its address'],
    next: ['`ncclx explain` on the node: which interface each consumer takes and why', 'set NCCL_SOCKET_IFNAME to the data interface (`ncclx env`)'], reports: [],
  },
  ifacePrivate: {
    id: 'iface-private', severity: 'warn', title: 'NCCL uses an interface private to the node',
    meaning: 'NCCL chose loopback, a Docker or libvirt bridge or a container veth: fine within one node, but other nodes cannot reach it, so a multi-node job hangs in bootstrap or at its first connection',
    causes: ['NCCL_SOCKET_IFNAME unset in a container whose only interfaces are the bridge and lo', 'NCCL_SOCKET_IFNAME matching the bridge (a prefix such as `d` or `v`)'],
    next: ['`ncclx explain` on the node', 'set NCCL_SOCKET_IFNAME to the data interface (`ncclx env`); run the container with the host network'], reports: ['mc-docker-bridge-container'],
  },
  errorTrace: {
    id: 'nccl-error-trace', severity: 'warn', title: 'NCCL error returned',
    meaning: 'NCCL prints `file:line -> code` for every function an error passes through on its way up (checks.h). The code is the ncclResult_t the caller gets; the first such line is the deepest frame, and the WARN just before it on the same host says why. NCCL also prints it for errors it goes past on purpose (a net plugin or transport it probes and skips, a GIN plugin on a node without libibverbs), so it is a warning: the WARN lines, PyTorch\'s error or a hang say whether the run failed',
    causes: ['the failure the WARN lines before it describe; without one, a call NCCL does not WARN for failed (the trace\'s first file and line say which)', 'system error: a system call or the network failed; internal error: often a failed socket or an unset address; invalid usage: an API misuse or settings that differ between ranks; remote error: a peer failed or closed its connection'],
    next: ['read the first WARN on this host before the first trace line', 'without a WARN, rerun with NCCL_DEBUG_SUBSYS=ALL and look just above the first trace line'], reports: [],
  },
  cuda: {
    id: 'cuda-failure', severity: 'error', title: 'CUDA failure', meaning: 'a CUDA call inside NCCL failed', causes: ['GPU out of memory', 'a GPU fault (Xid) or a driver/runtime mismatch'],
    next: ['check `nvidia-smi` and the kernel log for Xid errors', 'reduce memory use or NCCL buffers'], reports: [],
  },
} satisfies Record<string, Signature>;

type Rule = {
  test: RegExp;
} & (
  | { sig: Signature | ((m: RegExpExecArray) => Signature); detail?: (m: RegExpExecArray) => string }
  /** Signature and detail decided together (a connect failure that is a timeout or not). */
  | { match: (m: RegExpExecArray) => ProblemMatch }
);

const errnoText = (m: RegExpExecArray) => (m[1] ?? '').replace(/^\d+\s+/, '').replace(/,.*$/, '').replace(/\s+errno \d+$/, '').trim();

/** A connect that failed with errno text t: a timeout is `socket-timeout`, any other error `socket-connect` with the text. */
function connectFailure(t: string): ProblemMatch {
  const text = t.trim();
  return /timed out/i.test(text) ? { signature: S.timeout, detail: '' } : { signature: S.connect, detail: text };
}

/** ncclSocketType (socket.h, ≥ 2.16) as the handshake sends it. */
const SOCKET_TYPE: Record<string, string> = { 0: 'unknown', 1: 'bootstrap', 2: 'proxy', 3: 'NET/Socket', 4: 'NET/IB', 5: 'RAS' };
const socketType = (n: string) => SOCKET_TYPE[n] ?? `type ${n}`;

const WARN_RULES: Rule[] = [
  // `from peer 10.0.0.2<port> with status=NAME(12)` (≥ 2.19) or `from peer with error 4` (older, no address).
  // `with error 12, opcode …` without a peer up to 2.10; `from peer ADDR with error N` to 2.18; `with status=NAME(N)` since.
  { test: /Got completion (?:from peer(?: (\S+))? )?with (?:error |status=)(?:(\w+)\()?(\d+)/, sig: (m) => completion(Number(m[3])) },
  { test: /^(?:Bootstrap : no socket interface found|NET\/Socket ?: ?[Nn]o (?:usable listening )?interface found|NET\/IB ?: ?No IP interface found|Net : No interface found in the same subnet)/, sig: S.noSocketIf },
  { test: /Failed to open libibverbs/, sig: S.verbs },
  { test: /Call to ibv_modify_qp failed with (?:error )?(.*)$/, sig: S.modifyQp, detail: errnoText },
  { test: /Call to ibv_create_qp failed(?: with (?:error )?(.*))?/, sig: S.createQp, detail: errnoText },
  // ibvwrap.cc: `Call to ibv_create_cq failed` (≤ 2.13), `… failed with error %s` (≥ 2.14).
  { test: /Call to ibv_create_cq failed(?: with (?:error )?(.*))?$/, sig: S.createCq, detail: errnoText },
  // ibvwrap.cc `Call to ibv_open_device failed` and net_ib.cc / ib/init.cc `NET/IB : Unable to open device %s` (2.3–2.30): NCCL skips the device.
  { test: /^Call to ibv_open_device failed/, sig: S.ibOpenDevice },
  { test: /^NET\/IB ?: ?Unable to open device (\S+)/, sig: S.ibOpenDevice, detail: (m) => m[1]! },
  // ibvwrap.cc CHECK_NOT_NULL (2.27–2.30): a verbs call with libibverbs never loaded (a probe on a node without it).
  { test: /^lib wrapper not initialized\.?$/, sig: S.verbs },
  // IBV_PTR_CHECK / IBV_INT_CHECK: `Call to ibv_reg_mr failed`, `… ibv_reg_mr_iova2 …`, `… ibv_reg_dmabuf_mr …`, `… ibv_alloc_pd …` (`with error %s` since 2.14).
  { test: /Call to ibv_(?:reg_mr|reg_mr_iova2|reg_dmabuf_mr|alloc_pd) failed(?: with (?:error )?(.*))?/, sig: S.regMr, detail: errnoText },
  // `Could not find real path of %s (%s)` (≥ 2.8.4: name, path; NCCL goes on) and `… of /sys/class/infiniband/<dev>/device` (≤ 2.5, ignored by its caller).
  { test: /^Could not find real path of (?:(\S+) \(\/sys\/class\/infiniband\/|\/sys\/class\/infiniband\/([^/\s]+)\/device$)/, sig: S.ibPciPath, detail: (m) => (m[1] ?? m[2])! },
  { test: /ibv_query_gid|ncclIbRoceGetVersionNum|GID table changed|[Uu]nable to (?:get|query) (?:the )?gid/i, sig: S.gid },
  // Connects that ran out of retries, before the timeout rule: `exceeded error retry count` with a refused or
  // unreachable errno is no timeout. `%s: connect returned %s, exceeded error retry count (%d)` (2.24–2.26),
  // `%s: connect to %s returned %s, exceeded error retry count after %d attempts` (≥ 2.27).
  { test: /[Cc]onnect(?: to \S+)? returned (.+?), exceeded error retry count/, match: (m) => connectFailure(m[1]!) },
  // `socketPollConnect: Connect to %s returned %d(%s) errno %d(%s)` (2.20–2.23): the first errno is the connect's, the second stale.
  { test: /[Cc]onnect to \S+ returned -?\d+\(([^)]*)\)/, match: (m) => connectFailure(m[1]!) },
  // `socketStartConnect: exceeded retries (%d)` / `socketPollConnect: …` (2.16–2.23): the ECONNREFUSED retries ran out.
  { test: /(?:socketStartConnect|socketPollConnect): exceeded retries \(\d+\)/, sig: S.connect, detail: () => 'Connection refused' },
  // `socketPollConnect poll() failed with error %s` (2.16.5–2.26), `socketPollConnect to %s failed with error %s` (2.27–2.28),
  // `ncclOsSocketPollConnect to %s failed with error %s` (≥ 2.29).
  { test: /(?:[Cc]onnect to \S+|PollConnect poll\(\)) failed with error (.*)$/, match: (m) => connectFailure(m[1]!) },
  { test: /PollConnect poll\(\) returned (.*)$/, sig: S.connect, detail: (m) => `poll() returned ${m[1]}` },
  // recv/send failing because the peer went away: `Call to recv failed : %s` (2.4–2.9), `Net : Call to recv from %s failed : %s`
  // (2.10–2.15), `socketProgressOpt: Call to recv from %s failed : %s` (2.16–2.23), `… Call to %s %s failed : %s` (recv from / send to, ≥ 2.24).
  { test: /Call to (?:recv|send)(?: (?:from|to) \S+)? failed ?: ?(?:\d+ \()?(Connection reset by peer|Broken pipe|An existing connection was forcibly closed by the remote host)/, sig: S.peerClosed, detail: (m) => m[1]! },
  { test: /exceeded timeouts|exceeded error retry count|[Tt]imeout waiting for|timed out/, sig: S.timeout },
  { test: /[Cc]onnect to \S+ failed ?: ?(.*)$/, sig: S.connect, detail: errnoText },
  { test: /[Cc]onnection closed by (?:remote )?peer/, sig: S.peerClosed },
  // `Error : connecting to address with family %d …` (2.8.3–2.9), `Net : connecting to address %s with family %d …` (2.10–2.15),
  // `ncclSocketInit: connecting to address %s with family %d is neither AF_INET(%d) nor AF_INET6(%d)` (≥ 2.16).
  { test: /connecting to address .*with family -?\d+ is neither AF_INET/, sig: S.socketFamily },
  // `socketFinalizeAccept: wrong type %d != %d` (2.16–2.26), `socketFinalizeAccept from %s: wrong type %d != %d` (2.27–2.30.4): received != expected.
  { test: /socketFinalizeAccept(?: from \S+)?: wrong type (\d+) != (\d+)/, sig: S.wrongType, detail: (m) => `peer ${socketType(m[1]!)}, expected ${socketType(m[2]!)}` },
  { test: /socketFinalizeAccept(?: from \S+)?: wrong magic/, sig: S.wrongMagic },
  { test: /has already checked in/, sig: S.duplicateRank },
  { test: /Bootstrap Root : mismatch/, sig: S.bootstrapMismatch },
  { test: /shared memory|\/dev\/shm|shm_open|SHM /i, sig: S.shm },
  // shmutils.cc: `Call to open failed : %s` (SYSCHECKVAL, 2.12–2.15), `Call to open failed: %s` (SYSCHECKGOTO, ≥ 2.23).
  { test: /^Call to open failed ?: ?(.*)$/, sig: S.shm, detail: errnoText },
  { test: /CUDA IPC|cudaIpc|cuIpc|cuMemImportFromShareableHandle|cuMemExportToShareableHandle|P2P\/IPC|IPC handle/, sig: S.cudaIpc },
  { test: /Could not find (?:NET with|net) id/, sig: S.netNotFound },
  { test: /[Nn]etwork \S.* not found|Failed to initialize any NET plugin/, sig: S.network },
  { test: /[Vv]ersion mismatch|Mismatched NCCL version/, sig: S.version },
  { test: /async (?:fatal )?event/, sig: S.asyncEvent },
  { test: /incompatible devices|device is incompatible/, sig: S.incompatible },
  { test: /Duplicate GPU detected/, sig: S.duplicateGpu },
  { test: /Could not find a path for pattern/, sig: S.graphFallback },
  // proxy.cc; `[Service thread] Error encountered progressing operation=%s, res=%d, closing connection` (2.17–2.30),
  // `[Service thread] Could not receive type from localRank %d` (2.12–2.16), `…, res=%u, closed=%d` (≥ 2.17).
  { test: /\[Proxy Service \d+\] Failed to execute operation|Proxy Call to rank \d+ failed|Socket recv failed while polling for opId|\[Service thread\] (?:Error encountered progressing operation|Could not receive type from localRank)/, sig: S.proxy },
  // `nvmlDeviceGetHandleByPciBusId() failed: %s ` (≤ 2.11, trailing blank) and NVMLCHECK's `%s() failed: %s` (≥ 2.12).
  { test: /^nvmlDeviceGetHandleByPciBusId\(\) failed: ?(.*)$/, sig: S.nvmlBusId, detail: (m) => m[1]!.trim() },
  // transport/nvls.cc: `Failed to bind NVLink SHARP (NVLS) Multicast memory of size %zu : CUDA error %d '%s'.` (2.27.3–2.30), `… Multicast …`.
  { test: /NVLink SHARP|\(NVLS\)|NVLS [Mm]ulticast/, sig: S.nvls, detail: (m) => /'([^']+)'/.exec(m.input)?.[1] ?? '' },
  { test: /^Error : ring \d+ does not loop back to start/, sig: S.ringLoop },
  { test: /^XML Import Channel : dev \d+ not found/, sig: S.graphFile },
  // alloc.h: `Failed to CUDA calloc %ld bytes`, `… malloc …`, `… calloc async …` (2.19–2.30): GPU memory.
  { test: /^Failed to CUDA (?:calloc|malloc|host alloc)/, sig: S.cuda, detail: () => 'out of memory' },
  { test: /Cuda failure|CUDA error|cuda failure/, sig: S.cuda, detail: (m) => /'([^']+)'/.exec(m.input)?.[1] ?? '' },
];

/** Unknown WARN texts are grouped by their words, numbers and addresses masked. */
export function normalizeMessage(msg: string): string {
  return msg
    .replace(/0x[0-9a-fA-F]+/g, '0x…')
    .replace(/\b\d+(?:\.\d+){3}(?::\d+)?\b/g, '<addr>')
    .replace(/\b[0-9a-fA-F:]{6,}\b/g, '<addr>')
    .replace(/\d+/g, 'N')
    .slice(0, 200);
}

function other(msg: string): Signature {
  return {
    id: `warn:${normalizeMessage(msg)}`,
    severity: 'error',
    title: 'NCCL warning',
    meaning: 'a WARN line ncclx has no specific knowledge of; NCCL prints WARN only on failures',
    causes: [],
    next: ['read the lines just before it on the same host; the first WARN in time is usually the cause'],
    reports: [],
  };
}

/** Characters of a message the rules read (NCCL prints at most 1 KiB a line). */
const JUDGED = 4096;

/** The problem a WARN message shows (every WARN is one); `source`: its `file:line`, which tells an NVLS CUDA failure. */
export function warnProblem(whole: string, source: string | null = null): ProblemMatch {
  // NCCL's messages fit its 1 KiB buffer (debug.cc): a longer one is judged on its start, so a crafted line cannot make the rules' searches slow.
  const msg = whole.length > JUDGED ? whole.slice(0, JUDGED) : whole;
  if (source?.includes('nvls.cc') && /Cuda failure|CUDA error/.test(msg)) return { signature: S.nvls, detail: /'([^']+)'/.exec(msg)?.[1] ?? '' };
  for (const r of WARN_RULES) {
    const m = r.test.exec(msg);
    if (!m) continue;
    if ('match' in r) return r.match(m);
    const signature = typeof r.sig === 'function' ? r.sig(m) : r.sig;
    const facts = signature.id.startsWith('ib-completion-') ? completionFacts(msg) : undefined;
    return { signature, detail: r.detail ? r.detail(m) : '', ...(facts ? { facts } : {}) };
  }
  return { signature: other(msg), detail: '' };
}

/** ncclResult_t (nccl.h) by code: 7 (ncclInProgress, ≥ 2.14) is no failure; 8 (ncclTimeout) is ≥ 2.30.3. */
const NCCL_RESULT: Record<string, string> = { 1: 'unhandled cuda error', 2: 'system error', 3: 'internal error', 4: 'invalid argument', 5: 'invalid usage', 6: 'remote error', 8: 'timeout' };

/**
 * checks.h's error trace: `%s:%d -> %d` (NCCLCHECK…), `%s:%d -> %d (%s)` (SYSCHECK…, with strerror, ≥ 2.18.3),
 * `%s:%d -> %d [Async thread]` (and `[Proxy Thread]`, `[Progress Thread]`…); ≥ 2.30.7 INFO_LOC puts `(func)` after the line.
 */
const TRACE = /^[^\s:]+\.(?:cc|cu|cpp|cxx|c|h|hpp|cuh):\d+(?: \([^)]*\))? -> (-?\d+)(?: \([^)]*\))?(?: \[([^\]]*)\])?$/;

/**
 * A connect retry that says which one it is: `%s: connect returned %s, retrying (%d/%ld) after sleep for %u msec`
 * (2.24–2.26), `%s: connect to %s returned %s, retrying (%d/%ld) …` (≥ 2.27). The last one (n = total) is the
 * connect failing: the next failure is NCCL giving up.
 */
const RETRY = /^\w+: connect (?:to \S+ )?returned (.+), retrying \((\d+)\/(\d+)\) after sleep for \d+ msec$/;

/** PyTorch's `NCCL error in: file:line, <result>, NCCL version X` (the text from `NCCL error`): the result as detail. */
export function torchProblem(text: string): ProblemMatch {
  // `…, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version X`: the hint is not the result.
  const m = /NCCL error in: \S+, (.+?)(?: \(run with NCCL_DEBUG=\w+ for details\))?, NCCL version/.exec(text);
  return { signature: S.torch, detail: (m?.[1] ?? '').slice(0, 200) };
}

/** INFO lines that are problems although NCCL does not WARN. Runs on most INFO lines: each test is guarded by a character test first. */
export function infoProblem(whole: string): ProblemMatch | null {
  const msg = whole.length > JUDGED ? whole.slice(0, JUDGED) : whole;
  const c = msg.charCodeAt(0);
  if (c === 78 /* N */) {
    if (/^NET\/IB ?: ?No device found/.test(msg)) return { signature: S.ibNoDevice, detail: '' };
    if (/^NET\/IB ?: ?No IP interface found/.test(msg)) return { signature: S.noSocketIf, detail: '' };
    // nvidia-peermem missing: `NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)` (2.4–2.30).
    if (/^NET\/\S+ ?: ?GPU Direct RDMA Disabled for HCA \d+ '[^']*' \(no module\)/.test(msg)) return { signature: S.gdrNoModule, detail: /'([^']*)'/.exec(msg)![1]! };
    // A plugin that is there but would not load: `Plugin load returned %d : %s : when loading %s` (2.21), the bare dlerror (≥ 2.23,
    // printed unless the library is missing); a missing dependency, GLIBC or symbol, not the plugin's absence.
    if (/^NET\/Plugin ?: ?/.test(msg) && /GLIBC_|undefined symbol|wrong ELF class|invalid ELF header|\(required by [^)]*libnccl-net/.test(msg)) return { signature: S.pluginRejected, detail: msg.replace(/^NET\/Plugin ?: ?(?:Plugin load returned \d+ : )?/, '').slice(0, 200) };
    // The last word of the plugin search (2.7 `ncclNetPlugin symbol.`, 2.12 `…_v4 symbol.` tried last, 2.18 `(v4 or v5).`, 2.21 `(>= v5)…`).
    if (/^NET\/Plugin ?: ?Failed to find ncclNetPlugin(?: symbol|_v4 symbol)/.test(msg)) return { signature: S.pluginRejected, detail: '' };
  } else if (c === 70 /* F */) {
    if (msg.startsWith('Failed to open libibverbs')) return { signature: S.verbs, detail: '' };
  } else if (c === 67 /* C */) {
    // `Call to connect returned %s, retrying` (2.4–2.23) has no count: the refused retries (every 1000th, and in
    // 2.16–2.23 with a stale errno text) are routine while a peer starts listening and end in a WARN if they run
    // out; only a timed-out connect (2.5–2.12 print each of them) shows the path already failed.
    if (msg.startsWith('Call to connect returned ') && msg.endsWith(', retrying') && msg.includes('timed out')) return { signature: S.timeout, detail: '' };
  } else if ((c >= 97 && c <= 122) || c === 47 /* / */ || c === 46 /* . */) {
    // Source files and connect functions start lower-case (or with a path); what follows the first word tells
    // them from the rest: `file:line -> ` or `file:line (func) -> `, and `func: connect …`.
    const sp = msg.indexOf(' ');
    if (sp < 0) return null;
    // ≥ 2.30.7 no longer WARNs for a handshake that names another socket type or job: it discards the peer and
    // waits on (`socketFinalizeAccept from %s: wrong socket type (peer %d != expected %d -- …)`, `… socket magic mismatch …`).
    if (msg.startsWith('socketFinalizeAccept from ')) {
      const t = /: wrong socket type \(peer (\d+) != expected (\d+)/.exec(msg);
      if (t) return { signature: S.wrongType, detail: `peer ${socketType(t[1]!)}, expected ${socketType(t[2]!)}` };
      return msg.includes(': socket magic mismatch (') ? { signature: S.wrongMagic, detail: '' } : null;
    }
    const d = msg.charCodeAt(sp + 1);
    if (msg.charCodeAt(sp - 1) === 58 /* : */) {
      if (!msg.endsWith(' msec')) return null;
      const m = RETRY.exec(msg);
      if (m && Number(m[2]) >= Number(m[3])) return connectFailure(m[1]!);
    } else if (d === 45 /* - */ || d === 40 /* ( */) {
      const m = TRACE.exec(msg);
      if (m) {
        const code = m[1]!;
        // CUDACHECKTHREAD printed the result before setting it: `-> 0 [Async thread]` is a CUDA failure.
        if (code === '0') return m[2] === 'Async thread' ? { signature: S.errorTrace, detail: NCCL_RESULT[1]! } : null;
        if (code === '7') return null;
        return { signature: S.errorTrace, detail: NCCL_RESULT[code] ?? `result ${code}` };
      }
    }
  }
  return null;
}

/**
 * A consumer's interface as the log states it (`Bootstrap : Using`, `NET/Socket : Using`, the IB transport's OOB) that
 * other nodes cannot reach, judged as the doctor's SOCK-002 / SOCK-003 judge it; null when every one is fine.
 */
export function ifaceProblem(consumer: string, endpoints: { ifname: string; address: string | null }[]): ProblemMatch | null {
  const local = endpoints.filter((e) => e.address !== null && isLinkLocal6(e.address));
  if (local.length) return { signature: S.ifaceLinkLocal, detail: `${consumer} on ${local.map((e) => e.ifname).join(', ')}` };
  const priv = endpoints.filter((e) => privateKind(e.ifname) !== null);
  if (priv.length) return { signature: S.ifacePrivate, detail: `${consumer} on ${priv.map((e) => `${e.ifname} (${privateKind(e.ifname)})`).join(', ')}` };
  return null;
}

export const SIGNATURES = S;
export { WC_STATUS };
