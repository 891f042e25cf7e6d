// What kind of interface NCCL chose, as far as reaching other nodes goes: the
// one judgement the doctor (SOCK-002, SOCK-003) and `ncclx log` both make. Pure.

/** An IPv6 link-local address (fe80::/10): it reaches only the local link. */
export const isLinkLocal6 = (address: string): boolean => /^fe[89ab]/i.test(address);

/** Interfaces private to the node (loopback, Docker and libvirt bridges, container veths), named as the doctor names them; null otherwise. */
export function privateKind(ifname: string): string | null {
  return /^lo/.test(ifname) ? 'loopback' : /^docker/.test(ifname) ? 'a Docker bridge' : /^virbr/.test(ifname) ? 'a libvirt bridge' : /^veth/.test(ifname) ? 'a container veth' : null;
}
