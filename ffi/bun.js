// ffi/bun.js -- libdalshim.so through bun:ffi.  A thin table: the signatures
// are ffi/abi.js's, the session on top is ffi/session.js.
//
// Ownership under bun:ffi (oven-sh/bun#35405, PR #35246):
//   - JS buffers are passed as TypedArrays, never as numbers from ptr(): Bun
//     keeps an argument TypedArray alive for the call, a ptr() number is not
//     a reference and its buffer may be collected before C reads it.
//   - A response from dalshim_query is read through toArrayBuffer() (a view
//     that never frees), copied into JS memory at once, and then released
//     with dalshim_free -- never toBuffer(), never a view that outlives the
//     free.
//   - Strings go to C as cString() buffers that end in NUL.
import { dlopen, toArrayBuffer } from 'bun:ffi';
import { SYMBOLS, shimPath } from './abi.js';
import { createSession } from './session.js';

// i64 results as number when exact ('i64_fast'; BigInt beyond 2^53).
const RESULT = { i32: 'i32', i64: 'i64_fast', ptr: 'ptr', str: 'cstring', void: 'void' };
const ARG = { i32: 'i32', i64: 'i64', usize: 'usize', buf: 'ptr', cstr: 'ptr', ptr: 'ptr' };

function table(symbols) {
  const out = {};
  for (const [name, [result, args]] of Object.entries(symbols)) {
    out[name] = { returns: RESULT[result], args: args.map((a) => ARG[a]) };
  }
  return out;
}

function load(path) {
  // The library is never closed: it embeds a Go runtime (golang/go#11100).
  const lib = dlopen(path, table(SYMBOLS)).symbols;
  const raw = {};
  for (const [name, [result]] of Object.entries(SYMBOLS)) {
    const f = lib[name];
    // A cstring result is a CString object; hand out a primitive string.
    raw[name] = result === 'str' ? (...a) => String(f(...a)) : f;
  }
  // bun:ffi has no asynchronous call: the async path is dalshim_query_ex on
  // the JS thread, in a later microtask (so that it is still asynchronous
  // for the caller, as on Deno and koffi).
  const queryEx = raw.dalshim_query_ex;
  raw.dalshim_query_ex_async = async (h, req, len, code) => {
    await null;
    return queryEx(h, req, len, code);
  };
  return raw;
}

const memory = {
  // dalshim_query returns 0 (null) on failure, an address otherwise.
  isNull: (p) => !p,
  // Copy n bytes at p into a JS-owned Uint8Array (the view is dropped here).
  copyOut: (p, n) => new Uint8Array(toArrayBuffer(p, 0, n)).slice(),
};

let raw;
export function binding() {
  raw ??= load(shimPath((k) => process.env[k]));
  return { name: 'bun-ffi', runtime: `bun ${Bun.version}`, raw, memory };
}

// open({dir, options}) -> Database, the same API as the Node addon.
let session;
export function open(opts) {
  session ??= createSession(binding());
  return session.open(opts);
}
