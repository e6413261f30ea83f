// lib/request-encoder.js -- a request {id, db, commands} -> MessagePack, in
// one walk of the JS values straight into bytes: exactly the bytes the
// shim's C++ encoder (msgpack-c) writes, which tests/node/encoding.test.js
// compares with (native.encodeRequest), and the refusals it makes.
//
// msgpack-c's forms: every integer in its smallest form (non-negative as
// positive fixint/uint8..uint64, negative as negative fixint/int8..int64;
// -0 is the integer 0), other finite numbers as float64, strings as
// fixstr/str8/str16/str32 of their UTF-8 bytes, Uint8Array as bin, arrays,
// and plain objects as maps of their own enumerable properties in for-in
// order with undefined values left out (as JSON.stringify does).
//
// Refused with a TypeError naming the path (e.g. "Find.args[0].b.$gt"), as
// the addon's encoder does: functions, symbols, undefined inside arrays,
// cycles, nesting deeper than MAX_DEPTH, non-finite numbers, BigInts
// outside int64/uint64 and objects that are neither plain objects, arrays
// nor Uint8Array.  Each property of the caller's objects is read exactly
// once (an object's values are gathered before its header is written, whose
// count leaves undefined ones out), so a getter cannot change what is sent
// between a check and the write.
//
// Why not msgpackr's Packr: it writes integers beyond 32 bits as float64 and
// BigInts as 9 bytes, so it needed a validating copy of every value first
// and a byte patch after; walking once into bytes costs less than the copy
// alone (docs/benchmarks.md).

// Deepest nesting of containers accepted inside one command's args (the
// DAL's own limit for a whole request is 64 levels, docs/protocol.md).
export const MAX_DEPTH = 64;

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const TWO_32 = 2 ** 32;

const utf8 = new TextEncoder();

function describe(v) {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  const c = Object.getPrototypeOf(v)?.constructor;
  return c && c.name ? c.name : 'object';
}

// One encoding in progress: the bytes, and the walk's state -- the
// containers being walked (a container met again among its own ancestors is
// a cycle; a value shared by two branches is not) and the key or index
// leading to each value, so the path is spelled out only for a refusal.
class Writer {
  constructor() {
    this.buf = new Uint8Array(8192);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
    this.ancestors = [];
    this.keys = [];
    this.gathered = []; // an object's [key, value] pairs, before its header
    this.root = '';
  }

  shrink() {
    this.buf = new Uint8Array(8192);
    this.view = new DataView(this.buf.buffer);
  }

  reserve(n) {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const grown = new Uint8Array(cap);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  refuse(why) {
    let path = this.root;
    for (const k of this.keys) path += typeof k === 'number' ? `[${k}]` : `.${k}`;
    throw new TypeError(`${path}: ${why}`);
  }

  // A container header: fix form (base | n) below `fixLimit`, else 16 or 32 bits.
  header(fixBase, fixLimit, op16, n) {
    this.reserve(5);
    const b = this.buf;
    if (n < fixLimit) b[this.pos++] = fixBase | n;
    else if (n <= 0xffff) {
      b[this.pos] = op16;
      this.view.setUint16(this.pos + 1, n);
      this.pos += 3;
    } else {
      b[this.pos] = op16 + 1;
      this.view.setUint32(this.pos + 1, n);
      this.pos += 5;
    }
  }

  // A non-negative integer up to 2^64-1 (a number up to 2^53-1, or hi/lo halves).
  uint(v) {
    this.reserve(9);
    const b = this.buf;
    const p = this.pos;
    if (v <= 0x7f) { b[p] = v; this.pos = p + 1; } else if (v <= 0xff) { b[p] = 0xcc; b[p + 1] = v; this.pos = p + 2; } else if (v <= 0xffff) {
      b[p] = 0xcd; this.view.setUint16(p + 1, v); this.pos = p + 3;
    } else if (v <= 0xffffffff) {
      b[p] = 0xce; this.view.setUint32(p + 1, v); this.pos = p + 5;
    } else {
      b[p] = 0xcf; this.view.setUint32(p + 1, Math.floor(v / TWO_32)); this.view.setUint32(p + 5, v >>> 0); this.pos = p + 9;
    }
  }

  // A negative safe integer.
  negative(v) {
    this.reserve(9);
    const b = this.buf;
    const p = this.pos;
    if (v >= -32) { b[p] = v & 0xff; this.pos = p + 1; } else if (v >= -0x80) { b[p] = 0xd0; this.view.setInt8(p + 1, v); this.pos = p + 2; } else if (v >= -0x8000) {
      b[p] = 0xd1; this.view.setInt16(p + 1, v); this.pos = p + 3;
    } else if (v >= -0x80000000) {
      b[p] = 0xd2; this.view.setInt32(p + 1, v); this.pos = p + 5;
    } else {
      const hi = Math.floor(v / TWO_32);
      b[p] = 0xd3; this.view.setInt32(p + 1, hi); this.view.setUint32(p + 5, v - hi * TWO_32); this.pos = p + 9;
    }
  }

  bigint(v) {
    if (v >= 0n) {
      if (v <= 0xffffffffn) return this.uint(Number(v));
      this.reserve(9);
      this.buf[this.pos] = 0xcf;
      this.view.setBigUint64(this.pos + 1, v);
    } else {
      if (v >= -0x80000000n) return this.negative(Number(v));
      this.reserve(9);
      this.buf[this.pos] = 0xd3;
      this.view.setBigInt64(this.pos + 1, v);
    }
    this.pos += 9;
    return undefined;
  }

  string(s) {
    const n = s.length;
    // ASCII (the common case: names, keys, SQL-ish text) is its own UTF-8:
    // written in place after a header sized for n bytes.
    const head = n < 32 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
    this.reserve(head + n);
    const b = this.buf;
    let p = this.pos + head;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return this.utf8String(s);
      b[p++] = c;
    }
    this.strHeader(n, head);
    this.pos = p;
    return undefined;
  }

  utf8String(s) {
    const bytes = utf8.encode(s); // lone surrogates become U+FFFD, as V8's WriteUtf8 writes them
    const n = bytes.length;
    const head = n < 32 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
    this.reserve(head + n);
    this.strHeader(n, head);
    this.buf.set(bytes, this.pos + head);
    this.pos += head + n;
  }

  strHeader(n, head) {
    const b = this.buf;
    const p = this.pos;
    if (head === 1) b[p] = 0xa0 | n;
    else if (head === 2) { b[p] = 0xd9; b[p + 1] = n; } else if (head === 3) { b[p] = 0xda; this.view.setUint16(p + 1, n); } else { b[p] = 0xdb; this.view.setUint32(p + 1, n); }
  }

  bin(u8) {
    const n = u8.length;
    this.reserve(5 + n);
    const b = this.buf;
    const p = this.pos;
    if (n <= 0xff) { b[p] = 0xc4; b[p + 1] = n; this.pos = p + 2; } else if (n <= 0xffff) { b[p] = 0xc5; this.view.setUint16(p + 1, n); this.pos = p + 3; } else {
      b[p] = 0xc6; this.view.setUint32(p + 1, n); this.pos = p + 5;
    }
    b.set(u8, this.pos);
    this.pos += n;
  }

  value(v, depth) {
    switch (typeof v) {
      case 'string': return this.string(v);
      case 'boolean':
        this.reserve(1);
        this.buf[this.pos++] = v ? 0xc3 : 0xc2;
        return undefined;
      case 'number':
        if (Number.isSafeInteger(v)) return v >= 0 ? this.uint(v) : this.negative(v); // -0 >= 0: the integer 0
        if (!Number.isFinite(v)) this.refuse(`non-finite number ${v} cannot be encoded`);
        this.reserve(9);
        this.buf[this.pos] = 0xcb;
        this.view.setFloat64(this.pos + 1, v);
        this.pos += 9;
        return undefined;
      case 'bigint':
        if (v < INT64_MIN || v > UINT64_MAX) this.refuse(`BigInt ${v} is outside int64/uint64`);
        return this.bigint(v);
      case 'undefined': return this.refuse('undefined cannot be encoded (inside an array)');
      case 'function':
      case 'symbol':
        return this.refuse(`a ${typeof v} cannot be encoded`);
      default: break;
    }
    if (v === null) {
      this.reserve(1);
      this.buf[this.pos++] = 0xc0;
      return undefined;
    }
    if (v instanceof Uint8Array) return this.bin(v);
    const isArray = Array.isArray(v);
    if (!isArray) {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        this.refuse(`${describe(v)} cannot be encoded (plain objects, arrays and Uint8Array only)`);
      }
    }
    if (depth >= MAX_DEPTH) this.refuse(`nesting deeper than ${MAX_DEPTH} levels`);
    if (this.ancestors.includes(v)) this.refuse('cycle (the value contains itself)');
    this.ancestors.push(v);
    if (isArray) this.array(v, depth);
    else this.map(v, depth);
    this.ancestors.pop();
    return undefined;
  }

  array(v, depth) {
    const n = v.length;
    this.header(0x90, 16, 0xdc, n);
    const keys = this.keys;
    for (let i = 0; i < n; i++) {
      keys.push(i);
      this.value(v[i], depth + 1);
      keys.pop();
    }
  }

  map(v, depth) {
    const g = this.gathered;
    const base = g.length;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const x = v[k];
      if (x !== undefined) g.push(k, x);
    }
    const end = g.length;
    this.header(0x80, 16, 0xde, (end - base) / 2);
    const keys = this.keys;
    // By index: a nested map appends to (and truncates back) the same array.
    for (let i = base; i < end; i += 2) {
      this.string(g[i]);
      keys.push(g[i]);
      this.value(g[i + 1], depth + 1);
      keys.pop();
    }
    g.length = base;
  }

  request(id, db, commands) {
    if (!Array.isArray(commands)) throw new TypeError(`commands: expected an array, got ${describe(commands)}`);
    // Key order id, db, commands, as the addon writes them.
    this.header(0x80, 16, 0xde, 3);
    this.string('id');
    if (typeof id === 'bigint') this.bigint(id);
    else this.uint(id);
    this.string('db');
    this.string(db);
    this.string('commands');
    this.header(0x90, 16, 0xdc, commands.length);
    for (let i = 0; i < commands.length; i++) {
      const c = commands[i];
      const method = c?.method;
      const args = c?.args;
      if (c === null || typeof c !== 'object' || typeof method !== 'string' || !Array.isArray(args)) {
        throw new TypeError(`commands[${i}]: expected {method: string, args: array}`);
      }
      this.ancestors.length = 0;
      this.keys.length = 0;
      this.gathered.length = 0;
      this.root = `${method}.args`;
      this.header(0x80, 16, 0xde, 2);
      this.string('method');
      this.string(method);
      this.string('args');
      this.value(args, 0);
    }
  }
}

// The writer every encoding uses; one started while it is busy (a getter in
// a filter that encodes a query itself) gets a writer of its own.
const shared = new Writer();
// A request larger than this (a bulk Insert) does not pin its buffer for the thread's life.
const MAX_KEPT = 1024 * 1024;
let busy = false;

/**
 * Encode a request {id, db, commands} (the shape of Query#request(id)).  The
 * result is a view of a reused buffer, valid until the next encodeRequest
 * call, which is all a synchronous call needs; pass keep=true for bytes that
 * must outlive that (a copy: tests, async calls).
 */
export function encodeRequest(request, keep = false) {
  if (request === null || typeof request !== 'object') throw new TypeError('request: expected {id, db, commands}');
  const { id, db, commands } = request;
  if (!Number.isSafeInteger(id) || id < 0) {
    if (typeof id !== 'bigint' || id < 0n || id > 2n ** 63n - 1n) {
      throw new TypeError(`id: expected an integer 0 .. 2^63-1, got ${describe(id)} ${String(id)}`);
    }
  }
  if (typeof db !== 'string') throw new TypeError(`db: expected a string, got ${describe(db)}`);
  const nested = busy;
  const w = nested ? new Writer() : shared;
  busy = true;
  w.pos = 0;
  if (w.buf.length > MAX_KEPT) w.shrink(); // views of the big buffer handed out earlier stay valid
  try {
    w.request(id, db, commands);
  } finally {
    busy = nested;
  }
  return keep || nested ? w.buf.slice(0, w.pos) : w.buf.subarray(0, w.pos);
}
