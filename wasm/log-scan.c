// The byte scanner of `ncclx log`, compiled to WebAssembly (scripts/build-wasm.mjs
// writes src/probe/log-scan-wasm.ts from it). It does the one part of reading a
// log that JavaScript cannot do fast enough: finding each line, its first
// `NCCL`, and reading the plainest channel line, which is three quarters of a
// job's log. Everything it does not read exactly is handed back as a range of
// lines that the TypeScript reader reads line by line as it always has, so the
// answer never depends on this file (test/log/scan.test.ts holds both ways equal).
//
// The input is an ASCII chunk at IN; scan() reads its complete lines from
// `from` and writes records to OUT:
//   REPLAY start end                      lines [start, end) for the TypeScript reader
//   RUN start k end rank nvia {vs ve hash count}×nvia
//                                         consecutive channel lines of one header
//                                         (bytes [start, k) of the first line) and one
//                                         rank: each distinct via [vs, ve) once, with
//                                         how many lines named it, in the order met;
//                                         [start, end) is the lines, to read them again
//   RANK start k end {the R_ fields}      a rank line as ascii.ts rankAt reads it
//   GID start k end ibDev gidIndex        a QP line as ascii.ts gidAt reads it
// and counts the lines with no `NCCL` that no record covers (plain()).
// A channel line here is what ascii.ts channelHeadAt + channelAt accept, byte
// for byte; rank and QP lines are `NCCL INFO ` lines that infoAscii would give
// to rankAt and gidAt, and they accept. Each is further limited to what a
// record carries: numbers of at most 9 digits, a via of at most VIA_KEEP
// bytes, a line of at most MAX_LINE bytes. The rest is replayed.

#include <wasm_simd128.h>

typedef unsigned char u8;

#define CHUNK (1 << 20)
/* 16-byte loads may look this far past the last line. */
#define PAD 64
#define OUT_CAP 65536
/* A record takes at most 6 + 4 * MAX_VIAS ints: scan() stops before OUT can overflow. */
#define OUT_ROOM (6 + 4 * MAX_VIAS)
#define MAX_LINE 65536
#define MAX_VIAS 8
#define VIA_KEEP 128

enum { REPLAY = 1, RUN = 2, RANK = 3, GID = 4 };

static u8 in[CHUNK + PAD];
static int out[OUT_CAP];
static int outLen;
static int plainLines;

__attribute__((export_name("input"))) u8 *input(void) { return in; }
__attribute__((export_name("capacity"))) int capacity(void) { return CHUNK; }
__attribute__((export_name("output"))) int *output(void) { return out; }
__attribute__((export_name("records"))) int records(void) { return outLen; }
__attribute__((export_name("plain"))) int plain(void) { return plainLines; }

/* First '\n' in [i, to), or -1. */
static int newline(const u8 *p, int i, int to) {
  const v128_t nl = wasm_i8x16_splat('\n');
  for (; i + 16 <= to; i += 16) {
    int m = wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(p + i), nl));
    if (m) return i + __builtin_ctz(m);
  }
  for (; i < to; i++)
    if (p[i] == '\n') return i;
  return -1;
}

/* First `NCCL` starting in [a, e), or -1 (a match cannot run past e: the byte at e is CR or LF). */
static int nccl(const u8 *p, int a, int e) {
  const v128_t n = wasm_i8x16_splat('N'), c = wasm_i8x16_splat('C'), l = wasm_i8x16_splat('L');
  for (int i = a; i < e; i += 16) {
    v128_t m = wasm_v128_and(wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(p + i), n), wasm_i8x16_eq(wasm_v128_load(p + i + 1), c)),
                             wasm_v128_and(wasm_i8x16_eq(wasm_v128_load(p + i + 2), c), wasm_i8x16_eq(wasm_v128_load(p + i + 3), l)));
    int bits = wasm_i8x16_bitmask(m);
    if (bits) {
      int j = i + __builtin_ctz(bits);
      return j < e ? j : -1;
    }
  }
  return -1;
}

#define ESC 27
#define CR 13


/*
 * Whether [a, e) holds an ESC or a CR, which clean() would change: such lines
 * are all replayed, so the readers below need not look for them as ascii.ts's do.
 */
static int dirty(const u8 *p, int a, int e) {
  const v128_t esc = wasm_i8x16_splat(ESC), cr = wasm_i8x16_splat(CR);
  int i = a;
  for (; i + 16 <= e; i += 16) {
    v128_t v = wasm_v128_load(p + i);
    if (wasm_v128_any_true(wasm_v128_or(wasm_i8x16_eq(v, esc), wasm_i8x16_eq(v, cr)))) return 1;
  }
  for (; i < e; i++)
    if (p[i] == ESC || p[i] == CR) return 1;
  return 0;
}

/* Whether an `NCCL ` followed by a level's first letter (INFO, WARN, TRACE, ABORT) starts in [from, e): a second statement. */
static int secondLevel(const u8 *p, int from, int e) {
  for (int j = nccl(p, from, e); j >= 0; j = nccl(p, j + 4, e)) {
    u8 c = p[j + 5];
    if (p[j + 4] == ' ' && (c == 'I' || c == 'W' || c == 'T' || c == 'A')) return 1;
  }
  return 0;
}

/* Whether [x, x + n) and [y, y + n) hold the same bytes. */
static int same(const u8 *p, int x, int y, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16)
    if (!wasm_i8x16_all_true(wasm_i8x16_eq(wasm_v128_load(p + x + i), wasm_v128_load(p + y + i)))) return 0;
  for (; i < n; i++)
    if (p[x + i] != p[y + i]) return 0;
  return 1;
}

static int digit(u8 c) { return c >= '0' && c <= '9'; }

/* 'NCCL INFO Channel ' */
static const u8 HEAD[18] = {'N', 'C', 'C', 'L', ' ', 'I', 'N', 'F', 'O', ' ', 'C', 'h', 'a', 'n', 'n', 'e', 'l', ' '};
/* What channel() read. */
static int readRank, readVia, readHash;

/* First `] -> ` (arrow) or `] ` at or after i and before e, or -1 (ascii.ts closeAt, on a line without CR or ESC). */
static int closeAt(const u8 *b, int i, int e, int arrow) {
  int need = arrow ? 5 : 2;
  for (int j = i; j + need <= e; j++) {
    if (b[j] == ']' && b[j + 1] == ' ' && (!arrow || (b[j + 2] == '-' && b[j + 3] == '>' && b[j + 4] == ' '))) return j;
  }
  return -1;
}

/*
 * The line [k, e) from its first `NCCL`, read as ascii.ts channelHeadAt and
 * channelAt read it; 0 when either would refuse it, or the rank it gives has
 * more than 9 digits, or its via is longer than VIA_KEEP.
 */
static int channel(const u8 *b, int k, int e) {
  if (e - k <= 18) return 0;
  for (int i = 0; i < 18; i++)
    if (b[k + i] != HEAD[i]) return 0;
  u8 last = b[e - 1];
  if (last <= 32 || last == ']') return 0;
  int i = k + 18, j = i;
  while (j < e && digit(b[j])) j++;
  if (j == i) return 0;
  i = j;
  if (b[i] == '/') {
    j = i + 1;
    while (j < e && digit(b[j])) j++;
    if (j == i + 1) return 0;
    i = j;
  }
  if (b[i] != ' ' || b[i + 1] != ':' || b[i + 2] != ' ') return 0;
  int fromAt = i + 3;
  for (j = fromAt; j < e && digit(b[j]); j++);
  int fromEnd = j;
  if (j == fromAt || b[j] != '[') return 0;
  i = closeAt(b, j, e, 1);
  if (i < 0) return 0;
  int toAt = i + 5;
  for (j = toAt; j < e && digit(b[j]); j++);
  int toEnd = j;
  if (j == toAt || b[j] != '[') return 0;
  i = closeAt(b, j, e, 0);
  if (i < 0) return 0;
  i += 2;
  int receive = 0;
  if (b[i] == '[' && b[i + 1] == 's' && b[i + 2] == 'e' && b[i + 3] == 'n' && b[i + 4] == 'd' && b[i + 5] == ']' && b[i + 6] == ' ') {
    i += 7;
  } else if (b[i] == '[' && b[i + 1] == 'r' && b[i + 2] == 'e' && b[i + 3] == 'c' && b[i + 4] == 'e' && b[i + 5] == 'i' && b[i + 6] == 'v' && b[i + 7] == 'e' && b[i + 8] == ']' && b[i + 9] == ' ') {
    receive = 1;
    i += 10;
  }
  if (b[i] != 'v' || b[i + 1] != 'i' || b[i + 2] != 'a' || b[i + 3] != ' ' || i + 4 >= e) return 0;
  int v = i + 4;
  if (e - v > VIA_KEEP) return 0;
  int h = 0;
  for (j = v; j < e; j++) h = (int)((unsigned)h * 31u + b[j]);
  /* A [receive] line names the peer first and this rank second. */
  int ra = receive ? toAt : fromAt, re = receive ? toEnd : fromEnd;
  if (re - ra > 9) return 0;
  int rank = 0;
  for (j = ra; j < re; j++) rank = rank * 10 + (b[j] - '0');
  readRank = rank;
  readVia = v;
  readHash = h;
  return 1;
}

/* Whether bytes [i, i + n) of b, before e, are lit. */
static int lit(const u8 *b, int i, int e, const char *text, int n) {
  if (i + n > e) return 0;
  for (int j = 0; j < n; j++)
    if (b[i + j] != (u8)text[j]) return 0;
  return 1;
}
#define LIT(b, i, e, s) lit(b, i, e, s, sizeof(s) - 1)

static int hex(u8 c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f'); }
static int word(u8 c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

static int hexEnd(const u8 *b, int i, int e) {
  while (i < e && hex(b[i])) i++;
  return i;
}

/* Where the digits from i end (i when none); their value, when at most 9 digits, goes to number. */
static int number;
static int digitsEnd(const u8 *b, int i, int e) {
  int j = i, v = 0;
  for (; j < e && digit(b[j]); j++)
    if (j - i < 9) v = v * 10 + (b[j] - '0');
  number = v;
  return j;
}

/* What rank() read, in the order of a RANK record after its first four ints. */
enum { R_COMM_START, R_COMM_END, R_RANK, R_NRANKS, R_DEV_SET, R_DEV_NEG, R_DEV, R_BUS_START, R_BUS_END, R_STAGE, R_FIELDS };
static int rankRead[R_FIELDS];

/*
 * The message at [i, e) as ascii.ts rankAt reads it; 0 when rankAt would
 * refuse it, or a rank, nranks or cudaDev it reads has more than 9 digits.
 */
static int rank(const u8 *b, int i, int e) {
  int *r = rankRead;
  int p, j;
  if (LIT(b, i, e, "comm ")) p = i + 5;
  else if (LIT(b, i, e, "ncclCommInitRank comm ")) p = i + 22;
  else return 0;
  r[R_COMM_START] = p;
  if (b[p] == '0' && b[p + 1] == 'x') {
    j = hexEnd(b, p + 2, e);
    if (j == p + 2) return 0;
  } else if (LIT(b, p, e, "(nil)")) j = p + 5;
  else return 0;
  r[R_COMM_END] = j < p + 32 ? j : p + 32;
  if (!LIT(b, j, e, " rank ")) return 0;
  p = digitsEnd(b, j + 6, e);
  if (p == j + 6 || p - (j + 6) > 9) return 0;
  r[R_RANK] = number;
  if (p + 8 > e || b[p] != ' ' || b[p + 1] != 'n' || (b[p + 2] != 'R' && b[p + 2] != 'r') || b[p + 3] != 'a' || b[p + 4] != 'n' || b[p + 5] != 'k' || b[p + 6] != 's' || b[p + 7] != ' ') return 0;
  j = digitsEnd(b, p + 8, e);
  if (j == p + 8 || j - (p + 8) > 9) return 0;
  r[R_NRANKS] = number;
  r[R_DEV_SET] = 0;
  if (LIT(b, j, e, " cudaDev ")) {
    int neg = b[j + 9] == '-';
    int q = j + 9 + neg;
    p = digitsEnd(b, q, e);
    if (p > q) {
      if (p - q > 9) return 0;
      r[R_DEV_SET] = 1;
      r[R_DEV_NEG] = neg;
      r[R_DEV] = number;
      j = p;
    }
  }
  if (LIT(b, j, e, " nvmlDev ")) {
    int q = j + 9 + (b[j + 9] == '-');
    p = digitsEnd(b, q, e);
    if (p > q) j = p;
  }
  r[R_BUS_START] = -1;
  r[R_BUS_END] = -1;
  if (LIT(b, j, e, " busId ")) {
    p = hexEnd(b, j + 7, e);
    if (p > j + 7) {
      r[R_BUS_START] = j + 7;
      r[R_BUS_END] = p < j + 7 + 32 ? p : j + 7 + 32;
      j = p;
    }
  }
  if (LIT(b, j, e, " commId 0x")) {
    p = hexEnd(b, j + 10, e);
    if (p > j + 10) j = p;
  }
  /* The first stage after them: 1 START, 2 COMPLETE. */
  int stage = 0;
  for (int q = j; q < e && stage == 0; q++) {
    if (b[q] != '-' || b[q + 1] != ' ') continue;
    int t = LIT(b, q + 2, e, "Init ") ? q + 7 : q + 2;
    if (LIT(b, t, e, "START")) stage = 1;
    else if (LIT(b, t, e, "COMPLETE")) stage = 2;
  }
  r[R_STAGE] = stage;
  return 1;
}

/* What gid() read. */
static int gidDev, gidIndex;

/* The message at [i, e) as ascii.ts gidAt reads it; 0 when gidAt would refuse it, or its IbDev or GID has more than 9 digits. */
static int gid(const u8 *b, int i, int e) {
  if (!LIT(b, i, e, "NET/IB: NCCL Dev ")) return 0;
  int j = digitsEnd(b, i + 17, e);
  if (j == i + 17 || !LIT(b, j, e, " IbDev ")) return 0;
  int p = digitsEnd(b, j + 7, e);
  if (p == j + 7 || p - (j + 7) > 9) return 0;
  gidDev = number;
  if (!LIT(b, p, e, " Port ")) return 0;
  j = digitsEnd(b, p + 6, e);
  if (j == p + 6 || j - (p + 6) > 15 || j >= e || b[j] != ' ') return 0;
  int found = 0;
  for (int q = j + 1; q < e && !found; q++) {
    if (b[q] != 'G' || !LIT(b, q, e, "GID ") || word(b[q - 1])) continue;
    p = digitsEnd(b, q + 4, e);
    if (p == q + 4) continue;
    if (p - (q + 4) > 9) return 0;
    gidIndex = number;
    found = 1;
  }
  return found;
}

/* A plain `NCCL INFO ` line at k (ascii.ts infoAscii's first test, before its header's). */
static int info(const u8 *b, int k, int e) {
  if (e - k <= 10 || !LIT(b, k, e, "NCCL INFO ")) return 0;
  u8 last = b[e - 1];
  return last > 32 && last != ']';
}

/* The run being gathered: its first line's start and `NCCL`, its rank, its vias. */
static int runStart = -1, runK, runEnd, runRank, runVias;
static int viaStart[MAX_VIAS], viaEnd[MAX_VIAS], viaHash[MAX_VIAS], viaCount[MAX_VIAS];
/*
 * A line was replayed whose next line the TypeScript reader may want whole: PyTorch's `Last error:` (the
 * line after it is NCCL's error text) or its `NCCL error in:` (the line after it names the result). Kept
 * across calls.
 */
static int replayNext;

/* Whether [a, e) ends with `Last error:` (then blanks): PyTorch's line above NCCL's last error (line.ts LAST_ERROR). */
static int lastError(const u8 *b, int a, int e) {
  while (e > a && (b[e - 1] == ' ' || b[e - 1] == '\t')) e--;
  return e - a >= 11 && e - a < 256 && lit(b, e - 11, e, "Last error:", 11);
}

/*
 * Whether the replayed line [a, e), its first `NCCL` at k (-1: none looked for, the line is too long), may be
 * PyTorch's `NCCL error in:` line (line.ts parseLine's torchError): it holds `NCCL error`, or an ESC or CR
 * that clean() removes could make it so. More than that line is harmless: replaying a line only costs time.
 */
static int torchError(const u8 *b, int a, int k, int e) {
  if (k < 0 || dirty(b, a, e)) return 1;
  for (int j = k; j >= 0; j = nccl(b, j + 4, e))
    if (LIT(b, j + 4, e, " error")) return 1;
  return 0;
}

/* The open REPLAY range, or -1. */
static int replayStart = -1, replayEnd;

/* A record of `size` ints whose first four are kind, start, k and end; the rest is the caller's to write. */
static int *record(int kind, int start, int k, int end, int size) {
  int *r = out + outLen;
  r[0] = kind;
  r[1] = start;
  r[2] = k;
  r[3] = end;
  outLen += size;
  return r;
}

static void endRun(void) {
  if (runStart < 0) return;
  int *r = record(RUN, runStart, runK, runEnd, 6 + 4 * runVias);
  r[4] = runRank;
  r[5] = runVias;
  for (int i = 0; i < runVias; i++) {
    r[6 + 4 * i] = viaStart[i];
    r[7 + 4 * i] = viaEnd[i];
    r[8 + 4 * i] = viaHash[i];
    r[9 + 4 * i] = viaCount[i];
  }
  runStart = -1;
}

static void endReplay(void) {
  if (replayStart < 0) return;
  out[outLen] = REPLAY;
  out[outLen + 1] = replayStart;
  out[outLen + 2] = replayEnd;
  outLen += 3;
  replayStart = -1;
}

/* Whether the channel line [a, e) (header [a, k), via from channel()) joins the run. */
static int joins(const u8 *b, int a, int k, int e) {
  if (runStart < 0 || readRank != runRank || k - a != runK - runStart || !same(b, a, runStart, k - a)) return 0;
  int n = e - readVia;
  for (int i = 0; i < runVias; i++)
    if (viaHash[i] == readHash && viaEnd[i] - viaStart[i] == n && same(b, readVia, viaStart[i], n)) {
      viaCount[i]++;
      return 1;
    }
  if (runVias == MAX_VIAS) return 0;
  viaStart[runVias] = readVia;
  viaEnd[runVias] = e;
  viaHash[runVias] = readHash;
  viaCount[runVias] = 1;
  runVias++;
  return 1;
}

/*
 * Reads the complete lines of in[from, to) (to: just past a newline, at most
 * capacity()) and returns where it stopped: `to`, or earlier when OUT is
 * nearly full (records() records were written; call again from there).
 */
__attribute__((export_name("scan"))) int scan(int from, int to) {
  outLen = 0;
  plainLines = 0;
  int a = from;
  while (a < to && outLen + 2 * OUT_ROOM < OUT_CAP) {
    int nl = newline(in, a, to);
    if (nl < 0) break;
    int e = nl;
    if (e > a && in[e - 1] == CR) e--;
    /* A longer line is the TypeScript reader's to cut, and a line clean() would change is its to clean. */
    int whole = e - a <= MAX_LINE;
    int k = whole ? nccl(in, a, e) : -1;
    /* A second `NCCL LEVEL` (lines a terminal copy glued together) is the TypeScript reader's too. */
    int known = k >= 0 && !dirty(in, a, e) && !secondLevel(in, k + 4, e);
    int replay = replayNext;
    replayNext = 0;
    if (whole && k < 0 && lastError(in, a, e)) replay = replayNext = 1;
    if (replay) {
      endRun();
      if (replayStart < 0) replayStart = a;
      replayEnd = nl + 1;
      if (k >= 0 || !whole) replayNext |= torchError(in, a, k, e);
    } else if (whole && k < 0) {
      /* No NCCL: only counted. It ends a run and a replay range, so that reading either again does not count it twice. */
      endRun();
      endReplay();
      plainLines++;
    } else if (known && channel(in, k, e)) {
      endReplay();
      if (!joins(in, a, k, e)) {
        endRun();
        runStart = a;
        runK = k;
        runRank = readRank;
        runVias = 0;
        joins(in, a, k, e);
      }
      runEnd = nl + 1;
    } else if (known && info(in, k, e) && (in[k + 10] == 'c' || in[k + 10] == 'n') && rank(in, k + 10, e)) {
      endRun();
      endReplay();
      int *r = record(RANK, a, k, nl + 1, 4 + R_FIELDS);
      for (int i = 0; i < R_FIELDS; i++) r[4 + i] = rankRead[i];
    } else if (known && info(in, k, e) && in[k + 10] == 'N' && gid(in, k + 10, e)) {
      endRun();
      endReplay();
      int *r = record(GID, a, k, nl + 1, 6);
      r[4] = gidDev;
      r[5] = gidIndex;
    } else {
      endRun();
      if (replayStart < 0) replayStart = a;
      replayEnd = nl + 1;
      replayNext = torchError(in, a, k, e);
    }
    a = nl + 1;
  }
  endRun();
  endReplay();
  return a;
}
