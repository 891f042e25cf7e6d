// The few facts ncclx needs from a shared library, read from its ELF headers
// without reading the library (libtorch_cuda.so is about 1 GB): what it needs
// (DT_NEEDED), where the dynamic loader looks for it (DT_RPATH, DT_RUNPATH),
// its DT_SONAME, and where its read-only data lies (.rodata), which is where
// a compiler puts a string literal such as NCCL's "NCCL version …".
//
// Every read is positioned and bounded; a truncated, foreign or hostile file
// gives null (or fewer facts), never an exception or a large allocation.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface ElfDynamic {
  needed: string[];
  soname: string | null;
  rpath: string[] | null;
  runpath: string[] | null;
}

export interface ElfInfo {
  /** 64-bit little-endian (x86_64, aarch64); others are not read. */
  dynamic: ElfDynamic | null;
  /** File ranges of the sections holding read-only data (.rodata and its kin). */
  rodata: { offset: number; size: number }[];
  size: number;
}

/** Section headers, dynamic entries and string tables are small; anything past these is not a library ncclx reads. */
const MAX_SECTIONS = 65_536;
const MAX_DYN_ENTRIES = 4_096;
const MAX_DYNSTR = 16 * 1024 * 1024;
const MAX_SHSTRTAB = 1024 * 1024;

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const DT_NULL = 0n;
const DT_NEEDED = 1n;
const DT_STRTAB = 5n;
const DT_STRSZ = 10n;
const DT_SONAME = 14n;
const DT_RPATH = 15n;
const DT_RUNPATH = 29n;

function readAt(fd: number, offset: number, length: number, size: number): Buffer | null {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > size) return null;
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) return null;
    got += n;
  }
  return buf;
}

const num = (v: bigint): number => (v > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(v));

function cString(buf: Buffer, at: number): string | null {
  if (at < 0 || at >= buf.length) return null;
  const end = buf.indexOf(0, at);
  return buf.toString('utf8', at, end < 0 ? buf.length : end);
}

interface Segment {
  type: number;
  offset: number;
  vaddr: bigint;
  filesz: number;
}

function programHeaders(fd: number, h: Buffer, size: number): Segment[] {
  const phoff = num(h.readBigUInt64LE(0x20));
  const phentsize = h.readUInt16LE(0x36);
  const phnum = h.readUInt16LE(0x38);
  if (phentsize < 56 || phnum === 0) return [];
  const table = readAt(fd, phoff, phentsize * phnum, size);
  if (!table) return [];
  const out: Segment[] = [];
  for (let i = 0; i < phnum; i++) {
    const b = i * phentsize;
    out.push({ type: table.readUInt32LE(b), offset: num(table.readBigUInt64LE(b + 8)), vaddr: table.readBigUInt64LE(b + 16), filesz: num(table.readBigUInt64LE(b + 32)) });
  }
  return out;
}

/** A virtual address inside a PT_LOAD segment, as a file offset. */
function fileOffset(segments: Segment[], vaddr: bigint): number {
  for (const s of segments) {
    if (s.type !== PT_LOAD || s.offset < 0 || s.filesz < 0) continue;
    if (vaddr >= s.vaddr && vaddr < s.vaddr + BigInt(s.filesz)) return s.offset + Number(vaddr - s.vaddr);
  }
  return -1;
}

/** A colon list of directories as ld.so reads DT_RPATH / DT_RUNPATH (empty entries are the current directory, kept as ''). */
const pathList = (s: string | null): string[] | null => (s === null ? null : s.split(':'));

function dynamicOf(fd: number, segments: Segment[], size: number): ElfDynamic | null {
  const dyn = segments.find((s) => s.type === PT_DYNAMIC);
  if (!dyn || dyn.offset < 0 || dyn.filesz <= 0) return null;
  const entries = Math.min(Math.floor(dyn.filesz / 16), MAX_DYN_ENTRIES);
  const table = readAt(fd, dyn.offset, entries * 16, size);
  if (!table) return null;
  const needed: bigint[] = [];
  let strtab = -1n;
  let strsz = 0n;
  let soname: bigint | null = null;
  let rpath: bigint | null = null;
  let runpath: bigint | null = null;
  for (let i = 0; i < entries; i++) {
    const tag = table.readBigInt64LE(i * 16);
    const val = table.readBigUInt64LE(i * 16 + 8);
    if (tag === DT_NULL) break;
    if (tag === DT_NEEDED) needed.push(val);
    else if (tag === DT_STRTAB) strtab = val;
    else if (tag === DT_STRSZ) strsz = val;
    else if (tag === DT_SONAME) soname = val;
    else if (tag === DT_RPATH) rpath = val;
    else if (tag === DT_RUNPATH) runpath = val;
  }
  if (strtab < 0n) return null;
  const at = fileOffset(segments, strtab);
  const len = Math.min(num(strsz), MAX_DYNSTR, size - at);
  const strings = at >= 0 && len > 0 ? readAt(fd, at, len, size) : null;
  if (!strings) return null;
  const str = (v: bigint | null) => (v === null ? null : cString(strings, num(v)));
  return {
    needed: needed.map((v) => str(v)).filter((s): s is string => s !== null),
    soname: str(soname),
    rpath: pathList(str(rpath)),
    runpath: pathList(str(runpath)),
  };
}

function rodataOf(fd: number, h: Buffer, size: number): { offset: number; size: number }[] {
  const shoff = num(h.readBigUInt64LE(0x28));
  const shentsize = h.readUInt16LE(0x3a);
  const shnum = h.readUInt16LE(0x3c);
  const shstrndx = h.readUInt16LE(0x3e);
  if (shoff <= 0 || shentsize < 64 || shnum === 0 || shnum > MAX_SECTIONS || shstrndx >= shnum) return [];
  const table = readAt(fd, shoff, shentsize * shnum, size);
  if (!table) return [];
  const field = (i: number, off: number) => num(table.readBigUInt64LE(i * shentsize + off));
  const namesAt = field(shstrndx, 0x18);
  const namesLen = Math.min(field(shstrndx, 0x20), MAX_SHSTRTAB);
  const names = namesLen > 0 ? readAt(fd, namesAt, namesLen, size) : null;
  if (!names) return [];
  const out: { offset: number; size: number }[] = [];
  for (let i = 0; i < shnum; i++) {
    const name = cString(names, table.readUInt32LE(i * shentsize));
    // SHT_NOBITS (8) has no bytes in the file.
    if (!name || !/^\.rodata(\.|$)/.test(name) || table.readUInt32LE(i * shentsize + 4) === 8) continue;
    const offset = field(i, 0x18);
    const len = field(i, 0x20);
    if (offset >= 0 && len > 0 && offset + len <= size) out.push({ offset, size: len });
  }
  return out;
}

/** The ELF facts of an open file, or null when it is not a 64-bit little-endian ELF file. */
export function readElfFd(fd: number): ElfInfo | null {
  const size = fstatSync(fd).size;
  const h = readAt(fd, 0, 64, size);
  // \x7fELF, ELFCLASS64, ELFDATA2LSB.
  if (!h || h.readUInt32BE(0) !== 0x7f454c46 || h[4] !== 2 || h[5] !== 1) return null;
  const segments = programHeaders(fd, h, size);
  return { dynamic: dynamicOf(fd, segments, size), rodata: rodataOf(fd, h, size), size };
}

/** readElfFd on a path; null when it cannot be opened or is not ELF. */
export function readElf(path: string): ElfInfo | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return fstatSync(fd).isFile() ? readElfFd(fd) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
