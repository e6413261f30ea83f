// workload-msgpack.js -- MessagePack for workload values: the requests the
// JS stress drivers send with --api into|raw, the check of each answer
// against its expected value, and a reader that keeps what a check must see
// (to explain a difference).
//
// Why not ffi/codec.js (msgpackr): a workload says "float64" with
// {"$real": ...} even when the value is integral (5.0), and a JS number
// cannot carry that; msgpackr would write 5.0 as the integer 5.  Here a
// float is a `Real`, written as float64 whatever its value, and the reader
// returns floats as `Real` and maps as `MsgMap` (entries in wire order), so
// an integer where a float is expected, or keys in another order, are
// differences.  Requests are written with integers in their smallest form
// (non-negative as positive fixint/uint*, negative as negative fixint/int*),
// exactly as msgpack-c does, so they are the bytes of the addon's encoder.
// Answers are compared as values, not bytes: the DAL writes integers in
// signed forms (200 as int16), an encoding choice, not a different answer.

/** A float64 value (the expander's form of {"$real": ...} and of JSON numbers with a fraction). */
export class Real {
  constructor(value) { this.value = value; }
}

/** A decoded map: [key, value] pairs in wire order. */
export class MsgMap {
  constructor(entries) { this.entries = entries; }
}

const utf8 = new TextEncoder();
// float64 bytes through a shared 8-byte scratch, in wire (big-endian) order.
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * A reusable writer: encode(v) returns a view of its buffer, valid until the
 * next encode.  Integers in their smallest form (msgpack-c's, the request
 * form), or with {dalForm: true} in the forms of the DAL's encoder (msgp's
 * AppendInt64: a non-negative integer above 127 as int16/32/64, the answer
 * form of docs/workloads.md).  The primitives (room, u8, int, smallestInt,
 * float, str, head, raw, reset, view) are public for workload-bytes.js,
 * which writes a query's bytes from its templates without building the
 * value.
 */
export class Writer {
  constructor(capacity = 1024, { dalForm = false } = {}) {
    this.buf = new Uint8Array(capacity);
    this.at = 0;
    this.dalForm = dalForm;
    this.last = this.buf.subarray(0, 0);
  }

  /** Start again at byte 0. */
  reset() { this.at = 0; }

  /**
   * The bytes written since reset(): a view of the buffer, the same object
   * as the last one while the buffer and the length stay (a query loop's
   * bytes keep their length from query to query: no view made per query).
   */
  view() {
    if (this.last.length !== this.at || this.last.buffer !== this.buf.buffer) this.last = this.buf.subarray(0, this.at);
    return this.last;
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.at + n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.at));
    this.buf = b;
  }

  u8(x) { this.buf[this.at++] = x; }
  // x (0 <= x < 2^(8 bytes), an exact integer) big-endian in 1, 2, 4 or 8 bytes.
  #be(x, bytes) {
    const b = this.buf;
    let at = this.at;
    if (bytes === 8) {
      const hi = Math.floor(x / 0x100000000);
      b[at++] = hi >>> 24; b[at++] = (hi >>> 16) & 0xff; b[at++] = (hi >>> 8) & 0xff; b[at++] = hi & 0xff;
      x >>>= 0; // the low 32 bits
      bytes = 4;
    }
    for (let k = bytes - 1; k >= 0; k--) b[at++] = (x >>> (8 * k)) & 0xff;
    this.at = at;
  }

  /** Bytes b as they are (a constant part, encoded once). */
  raw(b) {
    const n = b.length;
    this.room(n);
    const buf = this.buf;
    const at = this.at;
    if (n < 32) for (let k = 0; k < n; k++) buf[at + k] = b[k];
    else buf.set(b, at);
    this.at = at + n;
  }

  /** An integer, in this writer's form. */
  int(v) {
    if (this.dalForm && v > 0x7f) {
      this.room(9);
      if (v <= 0x7fff) { this.u8(0xd1); this.#be(v, 2); }
      else if (v <= 0x7fffffff) { this.u8(0xd2); this.#be(v, 4); }
      else { this.u8(0xd3); this.#be(v, 8); }
    } else this.smallestInt(v);
  }

  /**
   * An integer in its smallest form, non-negative ones unsigned, whatever
   * the writer's form: msgpack-c's, and msgp's AppendUint64 (the DAL writes
   * the answer's id so).
   */
  smallestInt(v) {
    this.room(9);
    if (v >= 0) {
      if (v < 0x80) this.u8(v);
      else if (v < 0x100) { this.u8(0xcc); this.u8(v); }
      else if (v < 0x10000) { this.u8(0xcd); this.#be(v, 2); }
      else if (v < 0x100000000) { this.u8(0xce); this.#be(v, 4); }
      else { this.u8(0xcf); this.#be(v, 8); }
    } else if (v >= -32) this.u8(v & 0xff);
    else if (v >= -0x80) { this.u8(0xd0); this.u8(v & 0xff); }
    else if (v >= -0x8000) { this.u8(0xd1); this.#be(v + 0x10000, 2); }
    else if (v >= -0x80000000) { this.u8(0xd2); this.#be(v + 0x100000000, 4); }
    else {
      // Two's complement of a safe negative integer: high word, low word.
      this.u8(0xd3);
      const lo = ((v % 0x100000000) + 0x100000000) % 0x100000000;
      const hi = (v - lo) / 0x100000000 + 0x100000000;
      this.#be(hi, 4);
      this.#be(lo, 4);
    }
  }

  float(v) {
    this.room(9);
    this.u8(0xcb);
    f64[0] = v;
    for (let k = 0; k < 8; k++) this.u8(f64Bytes[LITTLE_ENDIAN ? 7 - k : k]);
  }

  str(s) {
    // Worst case 3 bytes per UTF-16 unit, plus the longest header.
    this.room(s.length * 3 + 5);
    const head = this.at;
    // Short ASCII (column names, most values): written here, no encoder call.
    if (s.length < 32) {
      const b = this.buf;
      let k = 0;
      while (k < s.length && s.charCodeAt(k) < 0x80) { b[head + 1 + k] = s.charCodeAt(k); k++; }
      if (k === s.length) {
        b[head] = 0xa0 | k;
        this.at = head + 1 + k;
        return;
      }
    }
    // Header size guessed from the UTF-16 length; moved if the UTF-8 length needs another.
    const n0 = s.length < 32 ? 1 : s.length < 0x100 ? 2 : s.length < 0x10000 ? 3 : 5;
    const { written } = utf8.encodeInto(s, this.buf.subarray(head + n0));
    const n = written < 32 ? 1 : written < 0x100 ? 2 : written < 0x10000 ? 3 : 5;
    if (n !== n0) this.buf.copyWithin(head + n, head + n0, head + n0 + written);
    this.at = head;
    if (n === 1) this.u8(0xa0 | written);
    else if (n === 2) { this.u8(0xd9); this.u8(written); }
    else if (n === 3) { this.u8(0xda); this.#be(written, 2); }
    else { this.u8(0xdb); this.#be(written, 4); }
    this.at += written;
  }

  head(n, fix, b16, b32) {
    this.room(5);
    if (n < 16) this.u8(fix | n);
    else if (n < 0x10000) { this.u8(b16); this.#be(n, 2); }
    else { this.u8(b32); this.#be(n, 4); }
  }

  value(v) {
    if (v === null) { this.room(1); this.u8(0xc0); return; }
    switch (typeof v) {
      case 'number':
        if (Number.isInteger(v)) this.int(v);
        else this.float(v);
        return;
      case 'string': this.str(v); return;
      case 'boolean': this.room(1); this.u8(v ? 0xc3 : 0xc2); return;
      default: break;
    }
    if (v instanceof Real) { this.float(v.value); return; }
    if (Array.isArray(v)) {
      this.head(v.length, 0x90, 0xdc, 0xdd);
      for (let k = 0; k < v.length; k++) this.value(v[k]);
      return;
    }
    if (v instanceof MsgMap) {
      this.head(v.entries.length, 0x80, 0xde, 0xdf);
      for (const [k, x] of v.entries) { this.value(k); this.value(x); }
      return;
    }
    const keys = Object.keys(v);
    this.head(keys.length, 0x80, 0xde, 0xdf);
    for (let k = 0; k < keys.length; k++) { this.str(keys[k]); this.value(v[keys[k]]); }
  }

  /** The MessagePack bytes of v (a view of this writer's buffer). */
  encode(v) {
    this.at = 0;
    this.value(v);
    return this.buf.subarray(0, this.at);
  }
}

/**
 * Whether bytes[0..length) are exactly one MessagePack value equal to
 * `want` (an expanded workload value) under docs/workloads.md's rules:
 * integers equal as integers in whatever int form the DAL chose (it writes
 * signed forms, msgpack-c unsigned ones: both are the same integer), floats
 * as float64 (a Real or a non-integral number; never an integer), strings
 * byte-equal, map keys in the same order.  Walks the bytes in place and
 * allocates nothing for ASCII strings: the per-query check of every answer.
 */
export function equalsEncoded(bytes, length, want) {
  let at = 0;
  const u = (n) => {
    let x = 0;
    for (let k = 0; k < n; k++) x = x * 256 + bytes[at++];
    return x;
  };
  // An integer of the wire at `at` (after its type byte t), or NaN if t is not one.
  function int(t) {
    if (t < 0x80) return t;
    if (t >= 0xe0) return t - 0x100;
    switch (t) {
      case 0xcc: return u(1);
      case 0xcd: return u(2);
      case 0xce: return u(4);
      case 0xcf: { const hi = u(4); return hi * 0x100000000 + u(4); } // inexact only beyond 2^53: unequal anyway
      case 0xd0: { const x = u(1); return x >= 0x80 ? x - 0x100 : x; }
      case 0xd1: { const x = u(2); return x >= 0x8000 ? x - 0x10000 : x; }
      case 0xd2: { const x = u(4); return x >= 0x80000000 ? x - 0x100000000 : x; }
      case 0xd3: {
        const hi = u(4);
        const lo = u(4);
        return (hi >= 0x80000000 ? hi - 0x100000000 : hi) * 0x100000000 + lo;
      }
      default: return NaN;
    }
  }
  function strLen(t) {
    if (t >= 0xa0 && t <= 0xbf) return t & 0x1f;
    if (t === 0xd9) return u(1);
    if (t === 0xda) return u(2);
    if (t === 0xdb) return u(4);
    return -1;
  }
  function sameStr(t, s) {
    const n = strLen(t);
    if (n < 0 || at + n > length) return false;
    const start = at;
    at += n;
    if (n === s.length) {
      let k = 0;
      while (k < n && s.charCodeAt(k) === bytes[start + k] && bytes[start + k] < 0x80) k++;
      if (k === n) return true;
    }
    const b = utf8.encode(s);
    if (b.length !== n) return false;
    for (let k = 0; k < n; k++) if (b[k] !== bytes[start + k]) return false;
    return true;
  }
  function count(t, fix, b16, b32) {
    if ((t & 0xf0) === fix) return t & 0x0f;
    if (t === b16) return u(2);
    if (t === b32) return u(4);
    return -1;
  }
  function same(w) {
    if (at >= length) return false;
    const t = bytes[at++];
    if (w === null) return t === 0xc0;
    switch (typeof w) {
      case 'number':
        if (Number.isInteger(w)) return int(t) === w && at <= length;
        return t === 0xcb && at + 8 <= length && Object.is(float64(), w);
      case 'string': return sameStr(t, w);
      case 'boolean': return t === (w ? 0xc3 : 0xc2);
      default: break;
    }
    if (w instanceof Real) return t === 0xcb && at + 8 <= length && Object.is(float64(), w.value);
    if (Array.isArray(w)) {
      if (count(t, 0x90, 0xdc, 0xdd) !== w.length) return false;
      for (let k = 0; k < w.length; k++) if (!same(w[k])) return false;
      return true;
    }
    const keys = Object.keys(w);
    if (count(t, 0x80, 0xde, 0xdf) !== keys.length) return false;
    for (let k = 0; k < keys.length; k++) {
      if (at >= length || !sameStr(bytes[at++], keys[k]) || !same(w[keys[k]])) return false;
    }
    return true;
  }
  function float64() {
    for (let k = 0; k < 8; k++) f64Bytes[LITTLE_ENDIAN ? 7 - k : k] = bytes[at++];
    return f64[0];
  }
  return same(want) && at === length;
}

const utf8d = new TextDecoder('utf-8', { fatal: false });

/**
 * Decode bytes[0..length) into workload values: Real for floats, MsgMap for
 * maps, Uint8Array for bin, BigInt for integers beyond 2^53.  Throws an
 * Error on malformed or truncated input or trailing bytes.
 */
export function decode(bytes, length = bytes.length) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  let at = 0;
  const need = (n) => { if (at + n > length) throw new Error(`truncated at byte ${at}`); };
  const u = (n) => {
    need(n);
    let x = 0;
    for (let k = 0; k < n; k++) x = x * 256 + bytes[at++];
    return x;
  };
  const wide = (signed) => {
    need(8);
    const x = signed ? view.getBigInt64(at) : view.getBigUint64(at);
    at += 8;
    return x >= -(2n ** 53n) + 1n && x <= 2n ** 53n - 1n ? Number(x) : x;
  };
  const str = (n) => { need(n); const s = utf8d.decode(bytes.subarray(at, at + n)); at += n; return s; };
  const bin = (n) => { need(n); const b = bytes.slice(at, at + n); at += n; return b; };
  const arr = (n) => { const a = new Array(n); for (let k = 0; k < n; k++) a[k] = value(); return a; };
  const map = (n) => { const e = new Array(n); for (let k = 0; k < n; k++) e[k] = [value(), value()]; return new MsgMap(e); };
  function value() {
    const t = u(1);
    if (t < 0x80) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0xa0 && t <= 0xbf) return str(t & 0x1f);
    if (t >= 0x90 && t <= 0x9f) return arr(t & 0x0f);
    if (t >= 0x80 && t <= 0x8f) return map(t & 0x0f);
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return bin(u(1));
      case 0xc5: return bin(u(2));
      case 0xc6: return bin(u(4));
      case 0xca: { need(4); const x = view.getFloat32(at); at += 4; return new Real(x); }
      case 0xcb: { need(8); const x = view.getFloat64(at); at += 8; return new Real(x); }
      case 0xcc: return u(1);
      case 0xcd: return u(2);
      case 0xce: return u(4);
      case 0xcf: return wide(false);
      case 0xd0: { need(1); const x = view.getInt8(at); at += 1; return x; }
      case 0xd1: { need(2); const x = view.getInt16(at); at += 2; return x; }
      case 0xd2: { need(4); const x = view.getInt32(at); at += 4; return x; }
      case 0xd3: return wide(true);
      case 0xd9: return str(u(1));
      case 0xda: return str(u(2));
      case 0xdb: return str(u(4));
      case 0xdc: return arr(u(2));
      case 0xdd: return arr(u(4));
      case 0xde: return map(u(2));
      case 0xdf: return map(u(4));
      default: throw new Error(`unsupported MessagePack type 0x${t.toString(16)} at byte ${at - 1}`);
    }
  }
  const v = value();
  if (at !== length) throw new Error(`${length - at} bytes after the value`);
  return v;
}
