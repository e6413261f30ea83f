// ffi/deno.js -- libdalshim.so through Deno.dlopen (run with --allow-ffi).
// A thin table: the signatures are ffi/abi.js's, the session on top is
// ffi/session.js.
//
// Ownership: JS buffers are passed as 'buffer' arguments (Deno pins them for
// the call); a response from dalshim_query is copied into a JS-owned
// Uint8Array with UnsafePointerView.copyInto and then freed with
// dalshim_free; strings go to C as NUL-terminated cString() buffers.
import { SYMBOLS, OPTIONAL_SYMBOLS, shimPath } from './abi.js';
import { createSession } from './session.js';

const TYPE = {
  i32: 'i32', i64: 'i64', usize: 'usize', buf: 'buffer', cstr: 'buffer', ptr: 'pointer', str: 'pointer', void: 'void',
};

function table(symbols, optional) {
  const out = {};
  for (const [name, [result, args]] of Object.entries(symbols)) {
    out[name] = { result: TYPE[result], parameters: args.map((a) => TYPE[a]), optional };
  }
  return out;
}

function readString(p) {
  return p === null ? '' : Deno.UnsafePointerView.getCString(p);
}

function load(path) {
  // The library is never closed: it embeds a Go runtime (golang/go#11100).
  const lib = Deno.dlopen(path, { ...table(SYMBOLS, false), ...table(OPTIONAL_SYMBOLS, true) }).symbols;
  const raw = {};
  for (const [name, [result]] of Object.entries({ ...SYMBOLS, ...OPTIONAL_SYMBOLS })) {
    const f = lib[name];
    if (!f) { raw[name] = null; continue; } // optional, not in this build
    raw[name] = result === 'str' ? (...a) => readString(f(...a)) : f;
  }
  // dalshim_query on a thread of Deno's pool: the async path.  Mode (a)
  // only -- a pending response of dalshim_query_into belongs to the thread
  // that made the call, which a pool does not guarantee.
  const asyncLib = Deno.dlopen(path, {
    dalshim_query: { result: 'pointer', parameters: ['i64', 'buffer', 'usize'], nonblocking: true },
  }).symbols;
  raw.dalshim_query_async = asyncLib.dalshim_query;
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
