// ffi/deno.js -- libdalshim.so through Deno.dlopen (run with --allow-ffi).
// A thin table: the signatures are ffi/abi.js's, the session on top is
// ffi/session.js.
//
// Ownership: JS buffers are passed as 'buffer' arguments (Deno pins them for
// the call); a response from dalshim_query is copied into a JS-owned
// Uint8Array with UnsafePointerView.copyInto and then freed with
// dalshim_free; strings go to C as NUL-terminated cString() buffers.
import { SYMBOLS, shimPath } from './abi.js';
import { createSession } from './session.js';

const TYPE = {
  i32: 'i32', i64: 'i64', usize: 'usize', buf: 'buffer', cstr: 'buffer', ptr: 'pointer', str: 'pointer', void: 'void',
};

function table(symbols, extra = {}) {
  const out = {};
  for (const [name, [result, args]] of Object.entries(symbols)) {
    out[name] = { result: TYPE[result], parameters: args.map((a) => TYPE[a]), ...extra };
  }
  return out;
}

// Deno calls a symbol through V8's fast API when its arguments have the
// declared types; a 64-bit integer parameter (i64, usize) is declared there
// as a BigInt, and a Number in its place sends the call down the slow path:
// dalshim_query_into measured 1.3-1.9 us per call with Numbers against
// 0.5-0.6 us with BigInts (Deno 2.9, a call that fails at once on handle 0).
// So every symbol with such a parameter gets a wrapper of its arity that
// passes those arguments as BigInt (BigInt(x) of a BigInt is itself); the
// C ABI and the callers (session.js, the monitor) are unchanged.  A rest
// parameter and a spread would cost more than they save (2.8 us).
const WIDE = new Set(['i64', 'usize']);
function wideAsBigInt(f, args) {
  const w = args.map((a) => WIDE.has(a));
  if (!w.includes(true)) return f;
  const B = (x, wide) => (wide ? BigInt(x) : x);
  const [w0, w1, w2, w3, w4, w5] = w;
  switch (args.length) {
    case 1: return (a) => f(B(a, w0));
    case 2: return (a, b) => f(B(a, w0), B(b, w1));
    case 3: return (a, b, c) => f(B(a, w0), B(b, w1), B(c, w2));
    case 4: return (a, b, c, d) => f(B(a, w0), B(b, w1), B(c, w2), B(d, w3));
    case 5: return (a, b, c, d, e) => f(B(a, w0), B(b, w1), B(c, w2), B(d, w3), B(e, w4));
    case 6: return (a, b, c, d, e, g) => f(B(a, w0), B(b, w1), B(c, w2), B(d, w3), B(e, w4), B(g, w5));
    default: throw new Error(`ffi/deno.js: no wrapper for ${args.length} parameters`);
  }
}

function readString(p) {
  return p === null ? '' : Deno.UnsafePointerView.getCString(p);
}

function load(path) {
  // The library is never closed: it embeds a Go runtime (golang/go#11100).
  const lib = Deno.dlopen(path, table(SYMBOLS)).symbols;
  const raw = {};
  for (const [name, [result, args]] of Object.entries(SYMBOLS)) {
    const f = wideAsBigInt(lib[name], args);
    raw[name] = result === 'str' ? (...a) => readString(f(...a)) : f;
  }
  // dalshim_query_ex on a thread of Deno's pool: the async path.  Mode (a)
  // only -- a pending response of dalshim_query_into belongs to the thread
  // that made the call, which a pool does not guarantee -- and with the code
  // returned by the call, since the shim's last error stays on that thread.
  // The request and code buffers are held by the caller until it resolves.
  const { dalshim_query_ex } = SYMBOLS;
  raw.dalshim_query_ex_async = Deno.dlopen(path, table({ dalshim_query_ex }, { nonblocking: true }))
    .symbols.dalshim_query_ex;
  return raw;
}

const memory = {
  isNull: (p) => p === null,
  copyOut: (p, n) => {
    const out = new Uint8Array(n);
    if (n > 0) new Deno.UnsafePointerView(p).copyInto(out);
    return out;
  },
};

let raw;
export function binding() {
  raw ??= load(shimPath((k) => Deno.env.get(k)));
  return { name: 'deno-ffi', runtime: `deno ${Deno.version.deno}`, raw, memory };
}

// open({dir, options}) -> Database, the same API as the Node addon.
let session;
export function open(opts) {
  session ??= createSession(binding());
  return session.open(opts);
}
