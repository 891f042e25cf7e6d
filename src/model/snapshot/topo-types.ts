// The PCI topology part of a snapshot (src/probe/topology.ts): every PCI
// function on the sysfs path of each NVIDIA GPU and each RDMA device up to
// its root complex, with the attributes NCCL's topology detection reads
// (graph/xml.cc), the NUMA nodes and the CPU as NCCL identifies it.

/** One GPU of `nvidia-smi nvlink -s`: its links, each with its speed in GB/s or null when `<inactive>`. */
export interface NvlinkStatusGpu {
  /** nvidia-smi's GPU index (PCI bus order, as in topo -m). */
  index: number;
  name: string;
  links: { link: number; gbps: number | null }[];
}

export interface TopoFunction {
  bdf: string;
  /** The sysfs path below /sys/devices, one component per entry: ['pci0000:00', '0000:00:01.0', …, bdf]. */
  path: string[];
  class: string | null;
  vendor: string | null;
  device: string | null;
  /** subsystem_vendor / subsystem_device: NCCL tells Broadcom PEX switch generations by them. */
  subsystemVendor?: string | null;
  subsystemDevice?: string | null;
  /** `numa_node` as read (-1 when the platform does not say), null when unreadable. */
  numaNode: number | null;
  maxLinkSpeed: string | null;
  maxLinkWidth: number | null;
  currentLinkSpeed: string | null;
  currentLinkWidth: number | null;
}

export interface TopoPart {
  /** Functions by bdf: the endpoints and every bridge above them. */
  functions: TopoFunction[];
  /** NVIDIA GPUs (class 0x0300/0x0302), by bdf in PCI order. */
  gpus: string[];
  /** NUMA nodes with their CPU lists. */
  numaNodes: { id: number; cpulist: string }[];
  /** /proc/cpuinfo: vendor_id, cpu family, model (first processor); uname machine. */
  cpu: { arch: string | null; vendor: string | null; family: number | null; model: number | null };
  /**
   * NVLinks between GPUs from `nvidia-smi topo -m` (recorded as
   * commands/nvidia-smi-topo-m.txt under --root): links[i][j] is the NV# count
   * between GPU i and GPU j in nvidia-smi's order (PCI bus order), 0 for none.
   * Absent when nvidia-smi could not be run or read.
   */
  nvlink?: { links: number[][]; source: string } | null;
  /**
   * Each GPU's NVLinks from `nvidia-smi nvlink -s` (recorded as
   * commands/nvidia-smi-nvlink-s.txt under --root): active with their speed,
   * or inactive. NCCL counts only active links (NVML link state). Absent when
   * nvidia-smi could not be run or read.
   */
  nvlinkStatus?: { gpus: NvlinkStatusGpu[]; source: string } | null;
  /**
   * Each GPU's compute capability from `nvidia-smi --query-gpu=pci.bus_id,compute_cap`
   * (recorded as commands/nvidia-smi-compute-cap.txt under --root), asked only
   * when a GPU's PCI device id is not in ncclx's table (src/model/topo/gpu-facts.ts).
   * Absent when not asked, or nvidia-smi could not be run or read.
   */
  computeCaps?: { gpus: { bdf: string; sm: number }[]; source: string } | null;
  /** NCCL_TOPO_FILE candidates (environment and conf files) as read: NCCL loads the XML before detecting anything. */
  topoFiles?: { path: string; text: string | null; error: string | null }[];
}
