// What the GID findings share: the chosen entry of a port, and why an
// automatic choice ended on index 0 (IB-006 and IB-007 tell the cases apart).
import { gidFamily, gidValid } from '../gid.js';
import { portGids, type IbView, type PortRef } from './view.js';

/** The port's GID selection when it ended on an index, with that entry's bytes. */
export function chosen(v: IbView, r: PortRef) {
  const sel = r.port.gidSelection;
  if (!sel || sel.outcome.kind !== 'index') return null;
  const index = sel.outcome.index;
  const gids = portGids(v, r);
  const entry = gids.find((g) => g.index === index);
  return { sel, index, gids, entry, bytes: entry?.bytes ?? null };
}

/**
 * An automatic choice that stayed at GID 0 without a usable entry of the wanted family:
 * 'ipv6-only' (IB-007), 'no-ipv4', 'no-ipv6', 'out-of-range' (IB-006), or null.
 */
export function stuckAtZero(v: IbView, r: PortRef): 'ipv6-only' | 'no-ipv4' | 'no-ipv6' | 'out-of-range' | null {
  const c = chosen(v, r);
  if (!c || c.sel.mode !== 'auto' || c.index !== 0) return null;
  const { bytes: b, gids } = c;
  const family = v.gidParams.family.value;
  if (b && gidValid(b) && gidFamily(b) === family) return null;
  const v4 = gids.filter((g) => g.bytes && gidValid(g.bytes) && gidFamily(g.bytes) === 'AF_INET');
  const v6 = gids.filter((g) => g.bytes && gidValid(g.bytes) && gidFamily(g.bytes) === 'AF_INET6');
  if (family === 'AF_INET' && v4.length === 0) return v6.length ? 'ipv6-only' : 'no-ipv4';
  if (family === 'AF_INET6' && v6.length === 0) return 'no-ipv6';
  const range = v.gidParams.range;
  return range && range.effect !== 'all' ? 'out-of-range' : null;
}
