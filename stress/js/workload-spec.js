// workload-spec.js -- the workload format of docs/workloads.md, read once for
// every JS driver (Node addon, koffi, Bun, Deno): load and validate a
// stress/workloads/<name>.json (or any file), compile its expressions and
// templates, and expand a step's request and expected answer for a thread
// t and query number n.
//
// Everything that can be checked without the database is checked at load:
// the file's shape, every expression (syntax, unknown variables, division by
// zero among constants), and one trial expansion of every step and seed, so
// a broken workload stops the driver before its first query (exit 2).
//
// Runtime-agnostic: node:fs and node:url exist in Node, Bun and Deno.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { METHOD_ORDER } from '../../lib/builder.js';
import { DEFAULT_BACKEND, forBackend } from './workload-backend.js';
import { WorkloadError, compileExpr } from './workload-expr.js';
import { Real } from './workload-msgpack.js';

export { WorkloadError };

/** The shipped workloads' directory: --workload NAME is NAME.json there. */
export const WORKLOADS_DIR = fileURLToPath(new URL('../workloads/', import.meta.url));

/**
 * The workload names: every NAME.json in dir, sorted (dalstress lists the
 * same, stress/native/workload.cpp).  The names are the files, not a list in
 * the code: a file dropped into stress/workloads/ is a workload of every
 * driver with no other change (docs/extending.md).
 */
export function workloadNames(dir = WORKLOADS_DIR) {
  return readdirSync(dir).filter((f) => f.endsWith('.json') && f.length > 5).map((f) => f.slice(0, -5)).sort();
}

/** The shipped workloads' names when this module was loaded (workloadNames()). */
export const WORKLOAD_NAMES = Object.freeze(workloadNames());
export const DEFAULT_WORKLOAD = 'reference';

// Variable slots every step has; workload `let`s follow, then the step's,
// then $repeat variables (docs/workloads.md, "Variables").
const T = 0;
const N = 1;
const C = 2;
const ID = 3;
/** The env slot of a query's request id (WorkloadSpec.bind). */
export const ID_SLOT = ID;
const TWO32 = 2 ** 32;

const METHODS = new Set([...METHOD_ORDER, 'Select', 'Tx']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// JS objects put integer-like keys first whatever the file says, which would
// change the bytes of a map: refused rather than sent in another order.
const INDEX_KEY = /^(0|[1-9][0-9]*)$/;

/**
 * The argument as a file path if it contains '/' or ends in .json (as
 * dalstress reads it), else NAME.json in dir (default stress/workloads/).
 */
export function workloadPath(nameOrPath, dir = WORKLOADS_DIR) {
  if (nameOrPath.includes('/') || nameOrPath.endsWith('.json')) return nameOrPath;
  const file = join(dir, `${nameOrPath}.json`);
  if (nameOrPath !== '' && existsSync(file)) return file;
  throw new WorkloadError(`unknown workload "${nameOrPath}" (expected ${workloadNames(dir).join(', ')} or a .json file path)`);
}

/**
 * Load, validate and compile a workload.
 * @param {string} nameOrPath  a workload name (workloadNames()) or a file path
 * @param {object} [how]
 * @param {string} [how.dir]  where names are looked up (default stress/workloads/)
 * @param {boolean} [how.builder]  expand for lib/builder.js: floats as plain
 *        numbers (the builder cannot send an integral float), and objects
 *        and arrays built anew per query, as user code builds its filters
 * @param {string} [how.backend]  sqlite (default) or postgres: picks each
 *        {"$backend": ...} branch (workload-backend.js)
 * @param {string} [how.db]  the db the requests name instead of the file's
 *        (on PostgreSQL, the run's own schema)
 */
export function loadWorkload(nameOrPath, how = {}) {
  const path = workloadPath(nameOrPath, how.dir);
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new WorkloadError(`cannot read workload ${path}: ${e.message}`);
  }
  try {
    return parseWorkload(text, how, path);
  } catch (e) {
    if (e instanceof WorkloadError) e.message = `workload ${path}: ${e.message}`;
    throw e;
  }
}

/** parseWorkload(json text) -> compiled workload (see loadWorkload). */
export function parseWorkload(text, { builder = false, backend = DEFAULT_BACKEND, db = null } = {}, path = '(text)') {
  checkNumberTokens(text);
  let w;
  try {
    w = JSON.parse(text);
  } catch (e) {
    throw new WorkloadError(`not JSON: ${e.message}`);
  }
  w = forBackend(w, backend);
  const opts = { real: builder ? (v) => v : (v) => new Real(v), fresh: builder, slots: ID + 1 };
  obj(w, '', ['format', 'name', 'summary', 'db', 'schema', 'seed', 'let', 'steps'], ['format', 'name', 'db', 'steps']);
  if (w.format !== 1) throw new WorkloadError(`format: ${JSON.stringify(w.format)} (this driver reads format 1)`);
  str(w.name, 'name');
  // It goes into the report's mode (dalmon_start's "k=v;k=v" grammar).
  if (!/^[A-Za-z0-9_.-]+$/.test(w.name)) throw new WorkloadError(`name: ${JSON.stringify(w.name)} (letters, digits, '_', '.', '-')`);
  str(w.db, 'db');
  if (w.db === '') throw new WorkloadError('db: empty');
  if (w.summary !== undefined) str(w.summary, 'summary');
  const schema = w.schema ?? '';
  str(schema, 'schema');

  // Seed: t, n, id and the repeat variable.
  const seed = arr(w.seed ?? [], 'seed').map((s, i) => {
    const at = `seed[${i}]`;
    obj(s, at, ['repeat', 'commands', 'expect'], ['repeat', 'commands', 'expect']);
    obj(s.repeat, `${at}.repeat`, ['var', 'count'], ['var', 'count']);
    const v = s.repeat.var;
    if (typeof v !== 'string' || !NAME.test(v) || ['t', 'n', 'c', 'id'].includes(v)) {
      throw new WorkloadError(`${at}.repeat.var: ${JSON.stringify(v)} (a new variable name)`);
    }
    if (!Number.isSafeInteger(s.repeat.count) || s.repeat.count < 0) {
      throw new WorkloadError(`${at}.repeat.count: ${JSON.stringify(s.repeat.count)} (an integer >= 0)`);
    }
    const scope = new Map([['t', T], ['n', N], ['id', ID], [v, 4]]);
    opts.slots = Math.max(opts.slots, 5);
    return {
      count: s.repeat.count,
      varSlot: 4,
      commands: compileCommands(s.commands, scope, `${at}.commands`, opts),
      expect: compileExpect(s.expect, scope, `${at}.expect`, opts),
    };
  });

  // Steps: t, n, c, id, the workload's lets, the step's lets.
  const base = new Map([['t', T], ['n', N], ['c', C], ['id', ID]]);
  const shared = compileLets(w.let ?? {}, base, 'let', opts);
  const steps = arr(w.steps, 'steps').map((s, i) => {
    const at = `steps[${i}]`;
    obj(s, at, ['id', 'let', 'commands', 'expect'], ['commands', 'expect']);
    if (s.id !== undefined && (!Number.isSafeInteger(s.id) || s.id < 0)) {
      throw new WorkloadError(`${at}.id: ${JSON.stringify(s.id)} (an integer >= 0)`);
    }
    const own = compileLets(s.let ?? {}, shared.scope, `${at}.let`, opts);
    return {
      id: s.id ?? null,
      lets: [...shared.lets, ...own.lets],
      commands: compileCommands(s.commands, own.scope, `${at}.commands`, opts),
      expect: compileExpect(s.expect, own.scope, `${at}.expect`, opts),
    };
  });
  if (steps.length === 0) throw new WorkloadError('steps: empty (a workload sends at least one request)');

  const spec = new WorkloadSpec({ name: w.name, summary: w.summary ?? '', db: db ?? w.db, schema, path, seed, steps, slots: opts.slots });
  // Trial expansion: each seed entry's first item and every step of thread
  // 0's first cycle, so errors that depend on values (a division by zero,
  // a value beyond the exact range) stop the driver before its first query.
  for (const s of spec.seed) if (s.count > 0) spec.seedQuery(s, 0, 0);
  for (let n = 0; n < steps.length; n++) spec.query(0, n);
  return spec;
}

/** A compiled workload: what the query loops expand, per thread and query. */
export class WorkloadSpec {
  constructor(fields) {
    Object.assign(this, fields);
    // A step whose request and answer never change (the reference
    // workload's): encoded once by the loop, never expanded per query.
    this.constant = this.steps.length === 1 && this.steps[0].id !== null &&
      this.steps[0].lets.length === 0 && this.steps[0].commands.constant && this.steps[0].expect.constant;
  }

  /** The request id of thread t's query n (docs/workloads.md, "Steps"). */
  static id(t, n) { return (t + 1) * TWO32 + n; }

  /**
   * Thread t's query n: {id, commands, expect} with the values expanded.
   * `env` may be passed to reuse one array per thread.
   */
  query(t, n, env = new Array(this.slots)) {
    const step = this.steps[this.bind(t, n, env)];
    const id = env[ID];
    return { id, step, commands: step.commands.expand(env), expect: step.expect.expand(env) };
  }

  /**
   * The variables of thread t's query n into env (t, n, c, id, the lets);
   * returns the index of its step.  What query() expands from, and what
   * workload-bytes.js writes from.
   */
  bind(t, n, env) {
    const k = n % this.steps.length;
    const step = this.steps[k];
    env[T] = t;
    env[N] = n;
    env[C] = (n - k) / this.steps.length;
    env[ID] = step.id ?? WorkloadSpec.id(t, n);
    const lets = step.lets;
    for (let i = 0; i < lets.length; i++) env[lets[i].slot] = lets[i].expr(env);
    return k;
  }

  /** Seed entry s, item k, as the seed's n-th request of thread 0. */
  seedQuery(s, k, n, env = new Array(this.slots)) {
    env[T] = 0;
    env[N] = n;
    const id = WorkloadSpec.id(0, n);
    env[ID] = id;
    env[s.varSlot] = k;
    return { id, commands: s.commands.expand(env), expect: s.expect.expand(env) };
  }

  /** Every seed request in order: {id, commands, expect}. */
  *seedQueries() {
    const env = new Array(this.slots);
    let n = 0;
    for (const s of this.seed) for (let k = 0; k < s.count; k++) yield this.seedQuery(s, k, n++, env);
  }
}

// ------------------------------------------------------------- validation

function str(v, at) {
  if (typeof v !== 'string') throw new WorkloadError(`${at}: expected a string, got ${JSON.stringify(v)}`);
}
function arr(v, at) {
  if (!Array.isArray(v)) throw new WorkloadError(`${at}: expected an array, got ${JSON.stringify(v)}`);
  return v;
}
function obj(v, at, allowed, required) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new WorkloadError(`${at || 'the file'}: expected an object, got ${JSON.stringify(v)}`);
  }
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw new WorkloadError(`${at ? `${at}.` : ''}${k}: unknown key (expected ${allowed.join(', ')})`);
  }
  for (const k of required) if (!(k in v)) throw new WorkloadError(`${at ? `${at}.` : ''}${k}: missing`);
}

// JSON.parse cannot tell 5.0 from 5, nor keep an integer beyond 2^53: both
// are refused from the text itself (docs/workloads.md: an integral float is
// written {"$real": ...}).
function checkNumberTokens(text) {
  const re = /"(?:[^"\\]|\\.)*"|(-?[0-9]+)(\.[0-9]+)?([eE][-+]?[0-9]+)?/g;
  for (let m; (m = re.exec(text)) !== null;) {
    if (m[1] === undefined) continue;
    const token = m[0];
    const v = Number(token);
    const line = text.slice(0, m.index).split('\n').length;
    if (m[2] === undefined && m[3] === undefined) {
      if (!Number.isSafeInteger(v)) {
        throw new WorkloadError(`line ${line}: integer ${token} is outside +-(2^53 - 1), the JS drivers' exact integer range`);
      }
    } else if (Number.isInteger(v)) {
      throw new WorkloadError(`line ${line}: ${token} is a float with an integral value, which JavaScript reads as an ` +
        `integer; write {"$real": "${v}"}`);
    }
  }
}

function compileLets(lets, scope, at, opts) {
  obj(lets, at, Object.keys(lets), []);
  const out = [];
  const inner = new Map(scope);
  for (const [name, text] of Object.entries(lets)) {
    if (!NAME.test(name) || inner.has(name)) throw new WorkloadError(`${at}.${name}: not a new variable name`);
    const e = expr(text, inner, `${at}.${name}`);
    const slot = inner.size;
    inner.set(name, slot);
    opts.slots = Math.max(opts.slots, slot + 1);
    out.push({ slot, expr: e.eval });
  }
  return { lets: out, scope: inner };
}

function compileCommands(commands, scope, at, opts) {
  checkCommandList(commands, at);
  return compileTemplate(commands, scope, at, opts);
}

// The commands of docs/protocol.md: [{method, args: [...]}, ...]; a Tx's
// args are command lists.  Args may be a template that expands to an array.
function checkCommandList(list, at) {
  arr(list, at);
  if (list.length === 0) throw new WorkloadError(`${at}: empty`);
  list.forEach((c, i) => {
    const here = `${at}[${i}]`;
    obj(c, here, ['method', 'args'], ['method', 'args']);
    if (typeof c.method !== 'string' || !METHODS.has(c.method)) {
      throw new WorkloadError(`${here}.method: ${JSON.stringify(c.method)} (expected one of ${[...METHODS].join(', ')})`);
    }
    const templated = c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args);
    if (!Array.isArray(c.args) && !templated) throw new WorkloadError(`${here}.args: expected an array`);
    if (c.method === 'Tx') {
      if (!Array.isArray(c.args) || list.length !== 1) throw new WorkloadError(`${here}: a Tx is the only command, its args a list of command lists`);
      c.args.forEach((l, j) => checkCommandList(l, `${here}.args[${j}]`));
    } else if (i === 0 && c.method !== 'In') {
      throw new WorkloadError(`${here}.method: a statement starts with In`);
    }
  });
}

// The answer shapes of docs/protocol.md.
const SHAPES = [['i', 'c', 'r'], ['i', 'ra', 'li'], ['i', 'ra', 'li', 'e']];
function compileExpect(expect, scope, at, opts) {
  obj(expect, at, ['i', 'c', 'r', 'ra', 'li', 'e'], ['i']);
  const keys = Object.keys(expect).join(',');
  if (!SHAPES.some((s) => s.join(',') === keys)) {
    throw new WorkloadError(`${at}: keys ${keys} (an answer is {${SHAPES.map((s) => s.join(', ')).join('} or {')}}, in that order)`);
  }
  const t = compileTemplate(expect, scope, at, opts);
  t.kind = 'c' in expect ? 'rows' : 'e' in expect ? 'error' : 'exec';
  return t;
}

// ---------------------------------------------------------------- templates
//
// A compiled template: {constant, value} when it never changes, and always
// expand(env) -> the value for this query.  A computed one also says what
// it is (`node`: {kind: 'int'|'str'|'real'|'array'|'map'|'repeat', ...,
// slots: the variables its value depends on}), so that workload-bytes.js
// can write its bytes without expanding it, and keep them per value of
// those variables.

function constant(value) { return { constant: true, value, expand: () => value }; }
function computed(expand, node) { return { constant: false, expand, node }; }
/** The variable slots a compiled template (or expression) reads. */
export const slotsOf = (t) => (t.constant ? [] : t.node ? t.node.slots : t.slots);
const union = (list) => [...new Set(list.flatMap(slotsOf))];

function compileTemplate(v, scope, at, opts) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return constant(v);
  if (typeof v === 'number') return constant(Number.isInteger(v) ? v : opts.real(v));
  if (Array.isArray(v)) {
    const items = v.map((x, i) => compileTemplate(x, scope, `${at}[${i}]`, opts));
    if (!opts.fresh && items.every((x) => x.constant)) return constant(items.map((x) => x.value));
    const fns = items.map((x) => x.expand);
    return computed((env) => {
      const out = new Array(fns.length);
      for (let i = 0; i < fns.length; i++) out[i] = fns[i](env);
      return out;
    }, { kind: 'array', items, slots: union(items) });
  }
  const keys = Object.keys(v);
  for (const k of keys) {
    if (INDEX_KEY.test(k)) throw new WorkloadError(`${at}.${k}: an integer-like map key (JavaScript would reorder it)`);
  }
  switch (keys[0]) {
    case '$': return compileInt(v, scope, at);
    case '$str': return compileStr(v, scope, at);
    case '$real': return compileReal(v, scope, at, opts);
    case '$repeat': return compileRepeat(v, scope, at, opts);
    default: break;
  }
  const items = keys.map((k) => compileTemplate(v[k], scope, `${at}.${k}`, opts));
  if (!opts.fresh && items.every((x) => x.constant)) {
    const o = {};
    keys.forEach((k, i) => { o[k] = items[i].value; });
    return constant(o);
  }
  const fns = items.map((x) => x.expand);
  return computed((env) => {
    const o = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]] = fns[i](env);
    return o;
  }, { kind: 'map', keys, items, slots: union(items) });
}

function only(v, at, allowed) {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) throw new WorkloadError(`${at}.${k}: unknown key in a ${allowed[0]} template`);
}

// An expression field: its text, or a plain JSON integer ("count": 100).
function expr(text, scope, at) {
  if (Number.isSafeInteger(text)) return { constant: true, value: text, eval: () => text, slots: [] };
  try {
    return compileExpr(text, scope);
  } catch (e) {
    if (e instanceof WorkloadError) e.message = `${at}: ${e.message}`;
    throw e;
  }
}

function compileInt(v, scope, at) {
  only(v, at, ['$']);
  const e = expr(v.$, scope, at);
  return e.constant ? constant(e.value) : computed(e.eval, { kind: 'int', eval: e.eval, slots: e.slots });
}

// "text {expr} text": literal parts and expressions, alternating.
function compileStr(v, scope, at) {
  only(v, at, ['$str']);
  str(v.$str, `${at}.$str`);
  const parts = [];
  const re = /\{([^{}]*)\}/g;
  let last = 0;
  for (let m; (m = re.exec(v.$str)) !== null;) {
    parts.push(v.$str.slice(last, m.index), expr(m[1], scope, at));
    last = re.lastIndex;
  }
  const tail = v.$str.slice(last);
  if (/[{}]/.test(tail) || parts.some((p) => typeof p === 'string' && /[{}]/.test(p))) {
    throw new WorkloadError(`${at}.$str: unbalanced "{" or "}" in ${JSON.stringify(v.$str)}`);
  }
  parts.push(tail);
  if (parts.every((p) => typeof p === 'string' || p.constant)) {
    return constant(parts.map((p) => (typeof p === 'string' ? p : String(p.value))).join(''));
  }
  // parts: literal, expression, literal, ..., literal.
  return computed((env) => {
    let s = parts[0];
    for (let i = 1; i < parts.length; i += 2) s += parts[i].eval(env) + parts[i + 1];
    return s;
  }, { kind: 'str', parts, slots: union(parts.filter((p) => typeof p !== 'string')) });
}

function compileReal(v, scope, at, opts) {
  only(v, at, ['$real', 'over']);
  const e = expr(v.$real, scope, at);
  const over = v.over ?? 1;
  if (!Number.isSafeInteger(over) || over === 0) throw new WorkloadError(`${at}.over: ${JSON.stringify(v.over)} (a non-zero integer)`);
  if (e.constant) return constant(opts.real(e.value / over));
  const f = e.eval;
  const real = opts.real;
  return computed((env) => real(f(env) / over), { kind: 'real', eval: f, over, slots: e.slots });
}

function compileRepeat(v, scope, at, opts) {
  only(v, at, ['$repeat']);
  const r = v.$repeat;
  obj(r, `${at}.$repeat`, ['var', 'from', 'count', 'item'], ['var', 'count', 'item']);
  if (typeof r.var !== 'string' || !NAME.test(r.var) || scope.has(r.var)) {
    throw new WorkloadError(`${at}.$repeat.var: ${JSON.stringify(r.var)} (a new variable name)`);
  }
  const from = expr(r.from ?? '0', scope, `${at}.$repeat.from`);
  const count = expr(r.count, scope, `${at}.$repeat.count`);
  const inner = new Map(scope);
  const slot = Math.max(opts.slots, ...scope.values()) + 1;
  inner.set(r.var, slot);
  opts.slots = Math.max(opts.slots, slot + 1);
  const compiledItem = compileTemplate(r.item, inner, `${at}.$repeat.item`, opts);
  const item = compiledItem.expand;
  const fromF = from.eval;
  const countF = count.eval;
  const negative = (n) => new WorkloadError(`${at}.$repeat.count: ${n} (negative)`);
  return computed((env) => {
    const n = countF(env);
    if (n < 0) throw negative(n);
    const x0 = fromF(env);
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      env[slot] = x0 + i;
      out[i] = item(env);
    }
    return out;
  }, {
    kind: 'repeat', slot, from: fromF, count: countF, item: compiledItem, negative,
    slots: union([from, count, compiledItem]).filter((s) => s !== slot),
  });
}
