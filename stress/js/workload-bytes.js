// workload-bytes.js -- a query's request and its expected answer written as
// bytes straight from the workload's compiled templates (workload-spec.js):
// no value is expanded and, once the two writers have grown to the
// workload's sizes, nothing is allocated per query.  What the --api into|raw
// loops send and compare with (workload.js).
//
// The request in the request form: the bytes Writer.encode gives for the
// expanded {id, db, commands} (integers in their smallest form, as
// msgpack-c writes them).
//
// The expected answer in the forms of the DAL's encoder
// (native/internal/wire/encode.go; rows from internal/sqlite/rows.c and
// internal/postgres, "in msgp's exact forms"): the id `i` as msgp's
// AppendUint64 (smallest unsigned form), every other integer as its
// AppendInt64 (positive fixint, then int16/32/64 for a non-negative value
// above 127; negative fixint, then int8/16/32/64), floats as float64,
// strings, maps and arrays with their smallest headers (msgp's
// AppendString, AppendMapHeader, AppendArrayHeader), nil as nil, and the
// rows array `r` always as array32 (its count is patched in after the last
// row).  The encoder is deterministic: one answer, one byte string.
//
// Equal bytes are an equal answer: the expected bytes are an encoding of
// the expected value, so the value walk (equalsEncoded) accepts them, which
// tests/node/workload-bytes.test.js checks for every step of every shipped
// workload over whole cycles.  Other bytes are not yet a wrong answer: the
// loop then walks them as values (workload.js answerDifference), which
// accepts another encoding of the same values (a DAL built with another
// encoder) and explains a real difference.  So the verdict on every answer
// is the value walk's; only its cost moved off the hot path.
import { ID_SLOT, slotsOf } from './workload-spec.js';
import { Writer } from './workload-msgpack.js';

const asciiBytes = (s) => Uint8Array.from(s, (c) => c.charCodeAt(0));

// The bytes of a constant value in the writer form given.
function encodeOnce(value, dalForm) {
  return Uint8Array.from(new Writer(64, { dalForm }).encode(value));
}

// An array header of n items: the smallest form, or array32 (rows.c's `r`).
function arrayHeader(w, n, array32) {
  if (!array32) {
    w.head(n, 0x90, 0xdc, 0xdd);
    return;
  }
  w.room(5);
  w.u8(0xdd);
  w.u8((n >>> 24) & 0xff);
  w.u8((n >>> 16) & 0xff);
  w.u8((n >>> 8) & 0xff);
  w.u8(n & 0xff);
}

// A str header of n bytes, in its smallest form (Writer.str's and msgp's).
function strHeader(w, n) {
  if (n < 32) w.u8(0xa0 | n);
  else if (n < 0x100) { w.u8(0xd9); w.u8(n); }
  else if (n < 0x10000) { w.u8(0xda); w.u8(n >>> 8); w.u8(n & 0xff); }
  else { w.u8(0xdb); w.u8(n >>> 24); w.u8((n >>> 16) & 0xff); w.u8((n >>> 8) & 0xff); w.u8(n & 0xff); }
}

// Decimal digits of an integer's magnitude (the values of $str parts are
// safe integers: workload-expr.js).
function digitCount(x) {
  let n = 1;
  while (x >= 10) {
    x = Math.floor(x / 10);
    n++;
  }
  return n;
}

// A "$str" template: literal, expression, literal, ..., literal.  All-ASCII
// literals (every shipped workload's) are written around the numbers'
// digits with no string built; others through the string.
function strEmitter(parts) {
  const exprs = [];
  const literals = [];
  for (let i = 0; i < parts.length; i++) (i % 2 === 0 ? literals : exprs).push(parts[i]);
  if (!literals.every((s) => [...s].every((c) => c.charCodeAt(0) < 0x80))) {
    return (env, w) => {
      let s = parts[0];
      for (let i = 1; i < parts.length; i += 2) s += parts[i].eval(env) + parts[i + 1];
      w.str(s);
    };
  }
  const lit = literals.map(asciiBytes);
  const litLength = lit.reduce((a, b) => a + b.length, 0);
  const fns = exprs.map((e) => e.eval);
  const values = new Float64Array(fns.length);
  return (env, w) => {
    let n = litLength;
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i](env);
      values[i] = v;
      n += v < 0 ? 1 + digitCount(-v) : digitCount(v);
    }
    w.room(n + 5);
    strHeader(w, n);
    w.raw(lit[0]);
    for (let i = 0; i < fns.length; i++) {
      let v = values[i];
      if (v < 0) {
        w.u8(0x2d);
        v = -v;
      }
      const d = digitCount(v);
      const buf = w.buf;
      for (let k = w.at + d - 1; k >= w.at; k--) {
        buf[k] = 0x30 + (v % 10);
        v = Math.floor(v / 10);
      }
      w.at += d;
      w.raw(lit[i + 1]);
    }
  };
}

/**
 * (env, w) => void writing template t's value for env into Writer w (its
 * integers in w's form).  array32: t is the answer's rows array.
 */
function emitter(t, dalForm, array32 = false) {
  if (t.constant) {
    if (array32 && Array.isArray(t.value)) {
      const items = t.value.map((v) => encodeOnce(v, dalForm));
      return (env, w) => {
        arrayHeader(w, items.length, true);
        for (let i = 0; i < items.length; i++) w.raw(items[i]);
      };
    }
    const b = encodeOnce(t.value, dalForm);
    return (env, w) => w.raw(b);
  }
  const node = t.node;
  switch (node.kind) {
    case 'int': {
      const f = node.eval;
      return (env, w) => w.int(f(env));
    }
    case 'real': {
      const f = node.eval;
      const over = node.over;
      return (env, w) => w.float(f(env) / over);
    }
    case 'str': return strEmitter(node.parts);
    case 'array': {
      const items = node.items.map((x) => emitter(x, dalForm));
      return (env, w) => {
        arrayHeader(w, items.length, array32);
        for (let i = 0; i < items.length; i++) items[i](env, w);
      };
    }
    case 'map': return mapEmitter(node.keys, node.items, (k, x) => emitter(x, dalForm));
    case 'repeat': {
      const { slot, from, count, negative } = node;
      const item = emitter(node.item, dalForm);
      return (env, w) => {
        const n = count(env);
        if (n < 0) throw negative(n);
        arrayHeader(w, n, array32);
        const x0 = from(env);
        for (let i = 0; i < n; i++) {
          env[slot] = x0 + i;
          item(env, w);
        }
      };
    }
    default: throw new Error(`workload-bytes: unknown template kind ${node.kind}`);
  }
}

// A map's entries as emitters: before[i] the bytes before value i (the
// map header, for the first, and key i), values[i] value i's emitter, made by
// valueEmitter(key, template).  The header and every key are encoded once.
function mapEntries(keys, items, valueEmitter) {
  const head = new Writer(16);
  head.head(keys.length, 0x80, 0xde, 0xdf);
  const header = Uint8Array.from(head.view());
  const before = keys.map((k, i) => {
    const w = new Writer(16);
    if (i === 0) w.raw(header);
    w.str(k);
    return Uint8Array.from(w.view());
  });
  return { header, before, values: items.map((x, i) => valueEmitter(keys[i], x)) };
}

// Entries from..to-1 of mapEntries' result, as one emitter.
function entriesEmitter({ before, values }, from, to) {
  return (env, w) => {
    for (let i = from; i < to; i++) {
      w.raw(before[i]);
      values[i](env, w);
    }
  };
}

function mapEmitter(keys, items, valueEmitter) {
  const e = mapEntries(keys, items, valueEmitter);
  if (keys.length === 0) return (env, w) => w.raw(e.header);
  return entriesEmitter(e, 0, keys.length);
}

// The keys and values of a map template, constant or computed.
function mapParts(t) {
  if (!t.constant) return { keys: t.node.keys, items: t.node.items };
  const keys = Object.keys(t.value);
  return { keys, items: keys.map((k) => ({ constant: true, value: t.value[k] })) };
}

// The expected answer of a step, {i, ...} in the DAL's forms (above), in two
// parts: head (the map header, "i" and the id: new with every query) and
// tail (the rest: the same for every query whose tailSlots have the same
// values -- rows: one per key).
function answerParts(expect) {
  const { keys, items } = mapParts(expect);
  const e = mapEntries(keys, items, (key, x) => {
    if (key === 'i' && !x.constant && x.node.kind === 'int') {
      const f = x.node.eval;
      return (env, w) => w.smallestInt(f(env));
    }
    if (key === 'i') return emitter(x, false);
    return emitter(x, true, key === 'r');
  });
  return {
    head: entriesEmitter(e, 0, 1),
    tail: entriesEmitter(e, 1, keys.length),
    tailSlots: [...new Set(items.slice(1).flatMap(slotsOf))],
  };
}

// Tails kept by the values of their slots: a direct-mapped table of
// TAIL_TABLE entries (a collision replaces), so what it holds is bounded
// whatever the workload.  A step whose tails do not repeat (a variable that
// grows with the cycle, as write's and mixed's qty) would only miss: after
// TAIL_TRIAL lookups with fewer hits than misses its table is dropped and
// its tails are written per query, as the head is.
const TAIL_TABLE = 1024;
const TAIL_TRIAL = 4096;

class TailTable {
  constructor(slots, emit) {
    this.slots = slots;
    this.emit = emit;
    this.keys = new Array(TAIL_TABLE).fill(null);
    this.tails = new Array(TAIL_TABLE).fill(null);
    this.writer = new Writer(1024, { dalForm: true });
    this.lookups = 0;
    this.hits = 0;
    this.on = true;
  }

  // The tail for env, or null once the table is off (the caller writes it).
  get(env) {
    if (!this.on) return null;
    const slots = this.slots;
    let h = 0;
    for (let i = 0; i < slots.length; i++) {
      const v = env[slots[i]];
      h = (Math.imul(h, 0x9e3779b1) + (v | 0) + ((v / 0x100000000) | 0)) | 0;
    }
    h = (h ^ (h >>> 15)) & (TAIL_TABLE - 1);
    this.lookups++;
    const key = this.keys[h];
    if (key !== null) {
      let same = true;
      for (let i = 0; same && i < slots.length; i++) same = key[i] === env[slots[i]];
      if (same) {
        this.hits++;
        return this.tails[h];
      }
    }
    if (this.lookups === TAIL_TRIAL && this.hits < this.lookups / 2) {
      this.on = false;
      this.keys = null;
      this.tails = null;
      return null;
    }
    const w = this.writer;
    w.reset();
    this.emit(env, w);
    const tail = Uint8Array.from(w.view());
    this.keys[h] = Float64Array.from(slots, (s) => env[s]);
    this.tails[h] = tail;
    return tail;
  }
}

const NO_BYTES = new Uint8Array(0);

// One step's expected answer for the hot loop (WireQueries.prepareAnswer).
class StepAnswer {
  constructor(expect) {
    this.constant = null;
    if (expect.constant) {
      const w = new Writer(1024, { dalForm: true });
      answerEmitter(expect)([], w);
      this.constant = Uint8Array.from(w.view());
      return;
    }
    const { head, tail, tailSlots } = answerParts(expect);
    this.head = head;
    this.tail = tail;
    this.fixedTail = null;
    this.table = null;
    if (tailSlots.length === 0) {
      const w = new Writer(1024, { dalForm: true });
      tail([], w);
      this.fixedTail = Uint8Array.from(w.view());
    } else {
      this.table = new TailTable(tailSlots, tail);
    }
  }
}

function answerEmitter(expect) {
  const { head, tail } = answerParts(expect);
  return (env, w) => {
    head(env, w);
    tail(env, w);
  };
}

// The request of a step: {id, db, commands}, in that order (docs/workloads.md).
function requestEmitter(spec, step) {
  const head = new Writer(64);
  head.head(3, 0x80, 0xde, 0xdf);
  head.str('id');
  if (step.id !== null) head.smallestInt(step.id); // a literal id: part of the constant bytes
  const before = Uint8Array.from(head.view());
  const literalId = step.id !== null;
  head.reset();
  head.str('db');
  head.str(spec.db);
  head.str('commands');
  const middle = Uint8Array.from(head.view());
  const commands = emitter(step.commands, false);
  return (env, w) => {
    w.raw(before);
    if (!literalId) w.smallestInt(env[ID_SLOT]);
    w.raw(middle);
    commands(env, w);
  };
}

// Constant bytes once, or a writer's view per call.
function producer(emit, constant, writer) {
  if (constant) {
    writer.reset();
    emit([], writer);
    const b = Uint8Array.from(writer.view());
    return () => b;
  }
  return (env) => {
    writer.reset();
    emit(env, writer);
    return writer.view();
  };
}

/**
 * One thread's request and expected-answer bytes of a workload loaded for
 * the wire (not the builder), for query variables env (WorkloadSpec.bind)
 * of step k:
 *   - request(k, env): the request, a view valid until the next call (or a
 *     constant array, for a step that never changes);
 *   - prepareAnswer(k, env), then answerLength, answerLast (its last byte)
 *     and matches(bytes, length): the expected answer, as a head written per
 *     query and a tail kept per distinct value (TailTable);
 *   - answer(k, env): the expected answer as one new array (for tests).
 */
export class WireQueries {
  constructor(spec) {
    const requests = new Writer(1024);
    this.requests = spec.steps.map((s) => producer(requestEmitter(spec, s), s.id !== null && s.commands.constant, requests));
    this.steps = spec.steps.map((s) => new StepAnswer(s.expect));
    this.writer = new Writer(1024, { dalForm: true });
    this.head = NO_BYTES;
    this.tail = NO_BYTES;
    this.answerLength = 0;
    this.answerLast = 0;
  }

  request(k, env) { return this.requests[k](env); }

  prepareAnswer(k, env) {
    const a = this.steps[k];
    if (a.constant !== null) {
      this.head = a.constant;
      this.tail = NO_BYTES;
    } else {
      const w = this.writer;
      w.reset();
      a.head(env, w);
      let tail = a.fixedTail ?? a.table.get(env);
      if (tail === null) {
        a.tail(env, w);
        tail = NO_BYTES;
      }
      this.head = w.view();
      this.tail = tail;
    }
    this.answerLength = this.head.length + this.tail.length;
    this.answerLast = this.tail.length ? this.tail[this.tail.length - 1] : this.head[this.head.length - 1];
  }

  /** Whether bytes[0..length) are the prepared answer's bytes. */
  matches(bytes, length) {
    if (length !== this.answerLength) return false;
    const head = this.head;
    const n = head.length;
    for (let i = 0; i < n; i++) if (bytes[i] !== head[i]) return false;
    const tail = this.tail;
    for (let i = 0; i < tail.length; i++) if (bytes[n + i] !== tail[i]) return false;
    return true;
  }

  answer(k, env) {
    this.prepareAnswer(k, env);
    const out = new Uint8Array(this.answerLength);
    out.set(this.head);
    out.set(this.tail, this.head.length);
    return out;
  }
}
