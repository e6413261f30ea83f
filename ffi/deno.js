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

function readString(p) {
  return p === null ? '' : Deno.UnsafePointerView.getCString(p);
}

function load(path) {
  // The library is never closed: it embeds a Go runtime (golang/go#11100).
  const lib = Deno.dlopen(path, table(SYMBOLS)).symbols;
  const raw = {};
  for (const [name, [result]] of Object.entries(SYMBOLS)) {
    const f = lib[name];
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
