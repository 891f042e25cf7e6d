// What the kernel and NCCL bound, so that a snapshot or a tree holds no more
// than a real node can. The snapshot schema (./schema.ts) refuses a file past
// any of these by name (exit 2); the probe drops a tree's entry past them with
// a warning (src/probe/). Every algorithm then works on inputs of these sizes,
// linearly: one bad number cannot allocate an implied table of gigabytes.
// Where the kernel sets no bound (how many addresses or routes a node has),
// the limit is far above the largest real node and says so. Pure.

export const SNAPSHOT_LIMITS = {
  // --- names and text ------------------------------------------------------
  /** IFNAMSIZ (16) less the NUL: an interface name, an IPv4 address label (eth0:1). */
  ifname: 15,
  /** __NEW_UTS_LEN (64): the kernel's node name, which /etc/hostname sets. */
  hostname: 64,
  /** IB_DEVICE_NAME_MAX (64) less the NUL: mlx5_0, mlx5_bond_0, rocep1s0f0. */
  rdmaDevice: 63,
  /** A sysfs attribute is printed into one page; the largest Linux page is 64 KiB (arm64, ppc64le). */
  sysfsValue: 64 * 1024,
  /** PATH_MAX, with its NUL: a path, a symlink target. */
  path: 4096,
  /** MAX_ARG_STRLEN, 32 pages of 4 KiB: the longest string execve() takes into an environment. */
  envValue: 128 * 1024,
  /** What src/probe/read-bounded.ts reads of an NCCL conf file. */
  confFile: 256 * 1024,
  /** Recorded command output (iptables-save) and an NCCL_TOPO_FILE: what the probe reads of a file under --root. */
  file: 16 * 1024 * 1024,
  /** Any other text (a version, an errno and its message, a link speed): no field ncclx writes comes near. */
  text: 4096,

  // --- RDMA ----------------------------------------------------------------
  /** RDMA_MAX_PORTS (drivers/infiniband/core/core_priv.h): uverbs and umad number at most 8192 devices and ports, all devices together. */
  rdmaDevices: 8192,
  rdmaPortsTotal: 8192,
  /** ibv_device_attr.phys_port_cnt is a uint8_t: libibverbs, and so NCCL, sees port numbers up to 255. */
  portNumber: 255,
  /** A port's gid_tbl_len: the kernel lists gids/0 … gids/<len-1>; the largest tables drivers report (mlx5 RoCE) have 255–256 entries. */
  gidTable: 256,
  /** Netdevs of one PCI function (device/net/): one per port of a multi-port function. */
  netdevsPerFunction: 256,

  // --- network -------------------------------------------------------------
  /**
   * Links and addresses have no kernel bound. kube-proxy in IPVS mode puts
   * every Service address on kube-ipvs0 (about 10,000 on the largest
   * clusters); 65,536 is far above any real node.
   */
  links: 65_536,
  addresses: 65_536,
  /** Routes and policy rules: a Kubernetes node has a /32 per pod, a few hundred; a full Internet table (~1,000,000) is no GPU node. */
  routes: 65_536,
  rules: 65_536,
  /** tc qdiscs: one per TX queue of every NIC (16 NICs × 256 queues = 4,096). */
  qdiscs: 65_536,
  /** NFT_RULE_MAXEXPRS: expressions in one nftables rule. */
  nftExprs: 128,
  /** Flags of a link or an address (IFF_*, IFA_F_*): a few dozen names at most. */
  flags: 64,

  // --- environment and library ----------------------------------------------
  /** Variables recorded from the environment (those ncclx reads; a whole environment fits ARG_MAX). */
  envVars: 65_536,
  /** Conf files NCCL may read: NCCL_CONF_FILE, ~/.nccl.conf by passwd and by $HOME, /etc/nccl.conf. */
  confFiles: 8,
  /** Host names resolved (NCCL_COMM_ID, MASTER_ADDR, --comm-id) and the addresses getaddrinfo gives each. */
  resolutions: 16,
  resolvedAddresses: 1024,
  /** libnccl candidates and directories searched. */
  libraries: 4096,
  /** Probe warnings: one per failed read at most. */
  warnings: 65_536,

  // --- PCI and topology -------------------------------------------------------
  /** PCI functions: 256 buses × 32 devices × 8 functions is one domain; no node has more than a few hundred. */
  pciFunctions: 65_536,
  /** A bridge takes a bus number of its own (8 bits): a sysfs path has at most 256 bridges below the root complex. */
  pciPathDepth: 258,
  /**
   * GPUs: NCCL_TOPO_MAX_NODES nodes of one type (256 before 2.27, 576 in
   * 2.27–2.29.2, 640 since 2.29.7): past it NCCL fails ("tried to create too
   * many nodes"). The largest is the bound.
   */
  gpus: 640,
  /** CONFIG_NODES_SHIFT ≤ 10: at most 1024 NUMA nodes; -1 when the platform does not say. */
  numaNodes: 1024,
  /** NR_CPUS ≤ 8192 (CONFIG_MAXSMP): CPU numbers in a cpulist are below it. */
  cpus: 8192,
  /** PCIe link width: the 6-bit field of LNKSTA/LNKCAP (x1 … x32 in practice). */
  linkWidth: 63,
  /** NVLinks of one GPU (NVML_NVLINK_MAX_LINKS is 18; room for more). */
  nvlinks: 64,
  /** NCCL_TOPO_FILE candidates: the environment and each conf file. */
  topoFiles: 8,

  /** Nesting of the JSON document: a real snapshot is about 15 deep (nftables expressions). */
  depth: 64,
} as const;
