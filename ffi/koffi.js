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
import { SYMBOLS, OPTIONAL_SYMBOLS, shimPath } from './abi.js';
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
  const bind = (name, [result, args]) => lib.func(name, TYPE[result], args.map((a) => TYPE[a]));
  for (const [name, sig] of Object.entries(SYMBOLS)) raw[name] = bind(name, sig);
  for (const [name, sig] of Object.entries(OPTIONAL_SYMBOLS)) {
    try {
      raw[name] = bind(name, sig);
    } catch {
      raw[name] = null; // not in this build of the library
    }
  }
  // dalshim_query on libuv's thread pool: the async path (mode (a) only, see
  // ffi/deno.js for why).
  const query = raw.dalshim_query;
  raw.dalshim_query_async = (h, req, len) =>
    new Promise((resolve, reject) => query.async(h, req, len, (err, p) => (err ? reject(err) : resolve(p))));
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
