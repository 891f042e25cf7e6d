// Address arithmetic at its edges (src/model/linux/ip.ts): inet_aton's part
// count and byte limits, anchored forms, the IPv6 group count, RFC 5952's
// longest zero run, /32 masks. Each boundary on both sides.

import { describe, expect, it } from 'vitest';
import { formatIPv6, inetAton, isCanonicalIPv4, looksLikeIPv4, maskBytes, maskOf, parseIPv6, sameUnderMask, subnetOf } from '../../src/model/linux/ip.js';

const aton = (t: string) => {
  const b = inetAton(t);
  return b ? Array.from(b).join('.') : null;
};

describe('inet_aton', () => {
  it('one to four parts; five is none', () => {
    expect(aton('1')).toBe('0.0.0.1');
    expect(aton('1.2.3.4')).toBe('1.2.3.4');
    expect(aton('1.2.3.4.5')).toBeNull();
    expect(aton('1.2.3.4.0')).toBeNull();
  });
  it('leading parts are bytes (255 yes, 256 no); the last fills what is left', () => {
    expect(aton('255.1')).toBe('255.0.0.1');
    expect(aton('256.1')).toBeNull();
    expect(aton('1.16777215')).toBe('1.255.255.255');
    expect(aton('1.16777216')).toBeNull();
    expect(aton('4294967295')).toBe('255.255.255.255');
    expect(aton('4294967296')).toBeNull();
    expect(aton('0xffffffff')).toBe('255.255.255.255');
    expect(aton('0x100000000')).toBeNull();
  });
  it('hex, octal and decimal parts are whole words', () => {
    expect(aton('0x0a.1')).toBe('10.0.0.1');
    expect(aton('0x.1')).toBe('0.0.0.1');
    expect(aton('10x0a.1')).toBeNull();
    expect(aton('0x0a1g.1')).toBeNull();
    expect(aton('12a.1')).toBeNull();
    expect(aton('010.1')).toBe('8.0.0.1');
    expect(aton('08.1')).toBeNull();
  });
});

describe('IPv4 forms', () => {
  it('canonical: up to three digits per part, no leading zero, anchored', () => {
    expect(isCanonicalIPv4('255.255.255.255')).toBe(true);
    expect(isCanonicalIPv4('100.64.0.1')).toBe(true);
    expect(isCanonicalIPv4('1000.1.1.1')).toBe(false);
    expect(isCanonicalIPv4('1.1.1.1x')).toBe(false);
    expect(isCanonicalIPv4('1.1.1.a')).toBe(false);
  });
  it('looksLikeIPv4: four dotted groups of one to three digits, anchored', () => {
    expect(looksLikeIPv4('10.0.0.1')).toBe(true);
    expect(looksLikeIPv4('999.10.10.10')).toBe(true);
    expect(looksLikeIPv4('x10.0.0.1')).toBe(false);
    expect(looksLikeIPv4('10.0.0.1x')).toBe(false);
    expect(looksLikeIPv4('10.0.0.10.1')).toBe(false);
  });
});

describe('IPv6', () => {
  it('empty text or other characters: none', () => {
    expect(parseIPv6('')).toBeNull();
    expect(parseIPv6('fe80::1%eth0')).toBeNull();
    expect(parseIPv6('g::1')).toBeNull();
  });
  it(':: stands for at least one group: seven written groups with :: yes, eight no', () => {
    expect(parseIPv6('1:2:3:4:5:6:7::')).not.toBeNull();
    expect(parseIPv6('1:2:3:4:5:6:7::8')).toBeNull();
    expect(parseIPv6('1:2:3:4:5:6:7')).toBeNull();
  });
  it('a dotted quad tail fills the last four bytes only when given', () => {
    expect(formatIPv6(parseIPv6('::ffff:10.0.0.1')!)).toBe('::ffff:10.0.0.1');
    expect(Array.from(parseIPv6('::1:0:0')!).slice(12)).toEqual([0, 0, 0, 0]);
  });
  it('RFC 5952: the longest run of two or more zero groups becomes ::, the first of equal runs', () => {
    expect(formatIPv6(parseIPv6('1:0:0:2:0:0:0:3')!)).toBe('1:0:0:2::3');
    expect(formatIPv6(parseIPv6('1:0:0:2:0:0:3:4')!)).toBe('1::2:0:0:3:4');
    expect(formatIPv6(parseIPv6('1:0:2:3:4:5:6:7')!)).toBe('1:0:2:3:4:5:6:7');
    expect(formatIPv6(parseIPv6('1:2:3:4:5:6:0:0')!)).toBe('1:2:3:4:5:6::');
    expect(formatIPv6(parseIPv6('::')!)).toBe('::');
    // IPv4-mapped needs all five leading groups zero.
    expect(formatIPv6(parseIPv6('0:0:0:0:1:ffff:a00:1')!)).toBe('::1:ffff:a00:1');
  });
});

describe('masks', () => {
  it('maskOf: 0 and below none, 32 and above all, 31 all but one bit', () => {
    expect(maskOf(0)).toBe(0);
    expect(maskOf(-1)).toBe(0);
    expect(maskOf(32)).toBe(0xffffffff);
    expect(maskOf(33)).toBe(0xffffffff);
    expect(maskOf(31)).toBe(0xfffffffe);
    expect(maskOf(1)).toBe(0x80000000);
  });
  it('masks compare only their own bytes', () => {
    expect(Array.from(maskBytes(32, 4))).toEqual([255, 255, 255, 255]);
    expect(sameUnderMask(Uint8Array.from([10, 0, 0, 1]), Uint8Array.from([10, 0, 0, 1, 9]), maskBytes(32, 4))).toBe(true);
  });
  it('subnetOf: a /32 is the address; not an address: none', () => {
    expect(subnetOf('10.0.0.7', 32)).toBe('10.0.0.7/32');
    expect(subnetOf('10.0.0.7', 31)).toBe('10.0.0.6/31');
    expect(subnetOf('host', 24)).toBeNull();
  });
});
