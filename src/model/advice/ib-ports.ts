// Which of the usable RDMA ports a job should give NCCL (NCCL_IB_HCA), as the
// doctor judges them: no bonded device next to ordinary HCAs (IB-003), one
// link layer — the larger group, InfiniBand on a tie (IB-015) — and one rate,
// the largest group (IB-010: the slowest rail sets the pace). One function for
// `ncclx env` (one node) and `ncclx compare` (the ports usable on every node).

export interface PortChoice {
  /** `dev:port`. */
  hca: string;
  linkLayer: 'InfiniBand' | 'Ethernet';
  rateGbps: number | null;
  bond: boolean;
}

export function chooseIbPorts<P extends PortChoice>(usable: P[]): { chosen: P[]; dropped: { port: P; why: string }[] } {
  const dropped: { port: P; why: string }[] = [];
  let ports = usable;
  const ordinary = ports.filter((p) => !p.bond);
  if (ordinary.length && ordinary.length < ports.length) {
    for (const p of ports.filter((x) => x.bond)) dropped.push({ port: p, why: 'a bonded device next to ordinary HCAs' });
    ports = ordinary;
  }
  const ib = ports.filter((p) => p.linkLayer === 'InfiniBand');
  const roce = ports.filter((p) => p.linkLayer === 'Ethernet');
  let chosen = ib.length >= roce.length ? ib : roce;
  for (const p of chosen === ib ? roce : ib) dropped.push({ port: p, why: `${p.linkLayer === 'Ethernet' ? 'RoCE' : 'InfiniBand'}: one link layer per job` });
  const byRate = new Map<number, P[]>();
  for (const p of chosen) if (p.rateGbps !== null) byRate.set(p.rateGbps, [...(byRate.get(p.rateGbps) ?? []), p]);
  if (byRate.size > 1) {
    const major = [...byRate.values()].sort((a, b) => b.length - a.length || (b[0]!.rateGbps ?? 0) - (a[0]!.rateGbps ?? 0))[0]!;
    for (const p of chosen.filter((x) => !major.includes(x))) dropped.push({ port: p, why: `${p.rateGbps} Gb/s; the other rails run at ${major[0]!.rateGbps} Gb/s` });
    chosen = major;
  }
  return { chosen, dropped };
}
