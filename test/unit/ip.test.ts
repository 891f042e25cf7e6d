// Address arithmetic (src/model/linux/ip.ts), as inet_pton, inet_aton and
// getnameinfo see it: every parser on both sides of its limits.
import { describe, expect, it } from 'vitest';
import {
  formatIPv4, formatIPv6, inetAton, intToV4, isCanonicalIPv4, isIPv6LinkLocal, isIPv6Loopback, looksLikeIPAddress, looksLikeIPv4, maskBytes, maskOf, networkOf, parseIPv4, parseIPv6, parseSubnet, parseV4Prefix, prefixContains, prefixText, sameUnderMask, subnetOf, v4ToInt,
} from '../../src/model/linux/ip.js';

const v4 = (t: string) => { const b = parseIPv4(t); return b ? formatIPv4(b) : null; };
const aton = (t: string) => { const b = inetAton(t); return b ? formatIPv4(b) : null; };
const v6 = (t: string) => { const b = parseIPv6(t); return b ? formatIPv6(b) : null; };

describe('IPv4 text', () => {
  it('inet_pton: four decimal parts, each 0–255', () => {
    expect(v4('10.0.0.1')).toBe('10.0.0.1');
    expect(v4('255.255.255.255')).toBe('255.255.255.255');
    expect(v4('255.255.255.256')).toBeNull();
    expect(v4('10.0.0')).toBeNull();
    expect(v4('10.0.0.1.2')).toBeNull();
    expect(v4('1.2.3.1000')).toBeNull();
    expect(v4(' 1.2.3.4')).toBeNull();
  });
  it('inet_aton: one to four parts, octal and hex, the last fills the rest', () => {
    expect(aton('10.1')).toBe('10.0.0.1');
    expect(aton('10.1.2')).toBe('10.1.0.2');
    expect(aton('167772161')).toBe('10.0.0.1');
    expect(aton('010.011.002.001')).toBe('8.9.2.1');
    expect(aton('0x0a.0X1.0x.1')).toBe('10.1.0.1');
    expect(aton('0')).toBe('0.0.0.0');
    expect(aton('10.11.2.08')).toBeNull(); // 08 is no octal number
    expect(aton('1.2.3.4.5')).toBeNull();
    expect(aton('')).toBeNull();
    expect(aton('a.b.c.d')).toBeNull();
    expect(aton('256.1.1.1')).toBeNull(); // a leading part above 255
    expect(aton('1.2.3.256')).toBeNull(); // the last part above its bytes
    expect(aton('1.2.65535')).toBe('1.2.255.255');
    expect(aton('1.2.65536')).toBeNull();
    expect(aton('4294967295')).toBe('255.255.255.255');
    expect(aton('4294967296')).toBeNull();
    expect(aton('0x100000000')).toBeNull();
  });
  it('canonical dotted decimal only: no leading zeros, every part ≤ 255', () => {
    expect(isCanonicalIPv4('10.0.0.1')).toBe(true);
    expect(isCanonicalIPv4('0.0.0.0')).toBe(true);
    expect(isCanonicalIPv4('010.0.0.1')).toBe(false);
    expect(isCanonicalIPv4('10.0.0.256')).toBe(false);
    expect(isCanonicalIPv4('10.0.1')).toBe(false);
    expect(looksLikeIPv4('999.1.1.1')).toBe(true);
    expect(looksLikeIPv4('1.1.1')).toBe(false);
    expect(looksLikeIPv4('1.1.1.1x')).toBe(false);
  });
});

describe('IPv6 text', () => {
  it('inet_pton forms, printed RFC 5952 style', () => {
    expect(v6('2001:db8::1')).toBe('2001:db8::1');
    expect(v6('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(v6('::')).toBe('::');
    expect(v6('::1')).toBe('::1');
    expect(v6('fe80::')).toBe('fe80::');
    expect(v6('1:2:3:4:5:6:7:8')).toBe('1:2:3:4:5:6:7:8');
    expect(v6('1:0:0:2:0:0:0:3')).toBe('1:0:0:2::3'); // the longest run of zeros
    expect(v6('1:0:2:3:4:5:6:7')).toBe('1:0:2:3:4:5:6:7'); // a single zero is not shortened
    expect(v6('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1');
    expect(v6('64:ff9b::10.0.0.1')).toBe('64:ff9b::a00:1');
  });
  it('what inet_pton refuses', () => {
    for (const t of ['', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2::3', '1:2:3:4:5:6:7::8', 'g::1', '12345::1', '::ffff:10.0.0.256', 'fe80::1%eth0', ':1:2:3:4:5:6:7']) expect(v6(t), t).toBeNull();
  });
  it('loopback and link-local', () => {
    expect(isIPv6Loopback(parseIPv6('::1')!)).toBe(true);
    expect(isIPv6Loopback(parseIPv6('::')!)).toBe(false);
    expect(isIPv6Loopback(parseIPv6('1::1')!)).toBe(false);
    expect(isIPv6LinkLocal(parseIPv6('fe80::1')!)).toBe(true);
    expect(isIPv6LinkLocal(parseIPv6('febf::1')!)).toBe(true);
    expect(isIPv6LinkLocal(parseIPv6('fec0::1')!)).toBe(false);
    expect(isIPv6LinkLocal(parseIPv6('fd80::1')!)).toBe(false);
    expect(looksLikeIPAddress('10.0.0.1')).toBe(true);
    expect(looksLikeIPAddress('fe80::1')).toBe(true);
    expect(looksLikeIPAddress('host:1')).toBe(false);
    expect(looksLikeIPAddress('host')).toBe(false);
  });
});

describe('masks and prefixes', () => {
  it('mask bytes at every byte boundary', () => {
    expect(Array.from(maskBytes(0, 4))).toEqual([0, 0, 0, 0]);
    expect(Array.from(maskBytes(1, 4))).toEqual([128, 0, 0, 0]);
    expect(Array.from(maskBytes(8, 4))).toEqual([255, 0, 0, 0]);
    expect(Array.from(maskBytes(9, 4))).toEqual([255, 128, 0, 0]);
    expect(Array.from(maskBytes(31, 4))).toEqual([255, 255, 255, 254]);
    expect(Array.from(maskBytes(32, 4))).toEqual([255, 255, 255, 255]);
    expect(Array.from(maskBytes(64, 16)).slice(7, 9)).toEqual([255, 0]);
    expect(formatIPv4(networkOf(parseIPv4('10.1.2.3')!, 23))).toBe('10.1.2.0');
    expect(sameUnderMask(parseIPv4('10.0.0.1')!, parseIPv4('10.0.0.200')!, maskBytes(24, 4))).toBe(true);
    expect(sameUnderMask(parseIPv4('10.0.0.1')!, parseIPv4('10.0.1.1')!, maskBytes(24, 4))).toBe(false);
  });
  it('prefix text: default, a host, a network; lengths 0–32 only', () => {
    expect(parseV4Prefix('default')).toEqual({ bytes: new Uint8Array(4), len: 0 });
    expect(parseV4Prefix('0.0.0.0/0')).toEqual({ bytes: new Uint8Array(4), len: 0 });
    expect(parseV4Prefix('10.0.0.1')).toEqual({ bytes: Uint8Array.from([10, 0, 0, 1]), len: 32 });
    expect(parseV4Prefix('10.0.0.0/32')?.len).toBe(32);
    expect(parseV4Prefix('10.0.0.0/33')).toBeNull();
    expect(parseV4Prefix('10.0.0.0/-1')).toBeNull();
    expect(parseV4Prefix('10.0.0.0/x')).toBeNull();
    expect(parseV4Prefix('10.0.0/8')).toBeNull();
    expect(parseV4Prefix(undefined)).toBeNull();
    expect(prefixText(parseV4Prefix('10.1.2.3/16')!)).toBe('10.1.0.0/16');
  });
  it('containment: a prefix contains itself and longer ones inside it, not shorter or other ones', () => {
    const p = (t: string) => parseV4Prefix(t)!;
    expect(prefixContains(p('10.0.0.0/8'), p('10.1.0.0/16'))).toBe(true);
    expect(prefixContains(p('10.0.0.0/16'), p('10.0.0.0/16'))).toBe(true);
    expect(prefixContains(p('10.0.0.0/16'), p('10.0.0.0/8'))).toBe(false);
    expect(prefixContains(p('10.0.0.0/16'), p('10.1.0.0/24'))).toBe(false);
    expect(prefixContains(p('default'), p('192.168.0.1'))).toBe(true);
  });
});

describe('IPv4 as integers', () => {
  it('round trips and masks', () => {
    expect(v4ToInt('10.0.0.1')).toBe(0x0a000001);
    expect(v4ToInt('255.255.255.255')).toBe(0xffffffff);
    expect(v4ToInt('x')).toBeNull();
    expect(intToV4(0xc0a80101)).toBe('192.168.1.1');
    expect([maskOf(0), maskOf(-1), maskOf(1), maskOf(31), maskOf(32), maskOf(33)]).toEqual([0, 0, 0x80000000, 0xfffffffe, 0xffffffff, 0xffffffff]);
  });
  it('subnets of an address; parsed subnets', () => {
    expect(subnetOf('10.0.3.12', 24)).toBe('10.0.3.0/24');
    expect(subnetOf('10.0.3.12', 0)).toBe('0.0.0.0/0');
    expect(subnetOf('10.0.3.12', 32)).toBe('10.0.3.12/32');
    expect(subnetOf('10.0.3.12', 33)).toBeNull();
    expect(subnetOf('10.0.3.12', -1)).toBeNull();
    expect(subnetOf('fe80::1', 64)).toBeNull();
    expect(parseSubnet('10.0.3.0/24')).toEqual([0x0a000300, 24]);
    expect(parseSubnet('10.0.3.0/0')).toEqual([0x0a000300, 0]);
    expect(parseSubnet('10.0.3.0/32')).toEqual([0x0a000300, 32]);
    expect(parseSubnet('10.0.3.0/33')).toBeNull();
    expect(parseSubnet('10.0.3.0/-1')).toBeNull();
    expect(parseSubnet('10.0.3.0/2.5')).toBeNull();
    expect(parseSubnet('10.0.3/24')).toBeNull();
  });
});
