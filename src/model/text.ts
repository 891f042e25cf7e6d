// Small text helpers shared by the models' sentences. Pure.

/**
 * A sentence's first letter in lower case, to continue another sentence
 * with it; a first word that is an acronym or a name (NCCL_IB_HCA, IPv6, GID,
 * RDMA: a capital or digit after the first letter) stays as it is.
 */
export function lowerFirst(s: string): string {
  if (s.length < 2 || /^.[A-Z0-9_]/.test(s)) return s;
  return s.charAt(0).toLowerCase() + s.slice(1);
}
