// ffi/koffi.js -- libdalshim.so through koffi on Node.  A thin table: the
// signatures are ffi/abi.js's, the session on top is ffi/session.js.
//
// THE MAIN-THREAD CLIFF (docs/benchmarks.md, ../shared/reference notes):
// koffi runs a synchronous call on a stack of its own.  On a process's main
// thread that stack lies outside the bounds the Go runtime recorded for the
// thread, so every C->Go call refreshes them with pthread_getattr_np, which
// parses /proc/self/maps (golang/go#62440, #68587): ~100 us per query instead
// of ~6 us.  A worker_thread does not pay it.  The kit measures both and
// the stress driver runs koffi in a worker unless told --koffi-thread main.
//
// Ownership: JS buffers are passed to 'void *' parameters by address (no
// copy); a response from dalshim_query is copied out with koffi.view() +
// slice() and freed with dalshim_free; strings go to C as NUL-terminated
// cString() buffers.
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { SYMBOLS, shimPath } from './abi.js';
import { createSession } from './session.js';

const require = createRequire(import.meta.url);
const koffi = require('koffi');

const TYPE = {
  i32: 'int32_t', i64: 'int64_t', usize: 'size_t', buf: 'void *', cstr: 'const void *',
  ptr: 'void *', str: 'const char *', void: 'void',
};

function load(path) {
  // The library is never unloaded: it embeds a Go runtime (golang/go#11100).
  const lib = koffi.load(path);
  const raw = {};
  for (const [name, [result, args]] of Object.entries(SYMBOLS)) {
    raw[name] = lib.func(name, TYPE[result], args.map((a) => TYPE[a]));
  }
  // dalshim_query_ex on libuv's thread pool: the async path (mode (a) with
  // the code returned by the call; see ffi/deno.js for why).  The request
  // and code buffers are held by the caller until it resolves.
  const queryEx = raw.dalshim_query_ex;
  raw.dalshim_query_ex_async = (h, req, len, code) =>
    new Promise((resolve, reject) => queryEx.async(h, req, len, code, (err, p) => (err ? reject(err) : resolve(p))));
  return raw;
}

const memory = {
  isNull: (p) => p === null,
  copyOut: (p, n) => (n > 0 ? new Uint8Array(koffi.view(p, n)).slice() : new Uint8Array(0)),
};

let raw;
export function binding() {
  raw ??= load(shimPath((k) => process.env[k]));
  return {
    name: 'koffi',
    runtime: `node ${process.versions.node} koffi ${koffi.version ?? ''} ${isMainThread ? 'main thread' : 'worker thread'}`.trim(),
    raw,
    memory,
  };
}

// open({dir, options}) -> Database, the same API as the Node addon.
let session;
export function open(opts) {
  session ??= createSession(binding());
  return session.open(opts);
}
