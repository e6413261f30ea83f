// ffi/abi.js -- the C ABI of libdalshim.so (dal-shim/include/dalshim.h and
// dalmonitor.h) as one table of signatures, written once in abstract types.
// ffi/bun.js, ffi/deno.js and ffi/koffi.js map these types to their runtime's
// FFI vocabulary, so the three bindings cannot drift apart.
//
// Abstract types:
//   i32, i64, usize  integers (i64 results: number, or BigInt beyond 2^53)
//   buf              a JS Uint8Array (or BigInt64Array) passed by address for
//                    the duration of the call; never retained by C
//   cstr             const char * input: a NUL-terminated Uint8Array made by
//                    cString() -- never a JS buffer without its NUL
//   ptr              an opaque native pointer returned by dalshim_query and
//                    handed back to dalshim_buffer_size / dalshim_free
//   str              const char * result owned by the library, read at once
//                    into a JS string
//   void

export const SYMBOLS = {
  dalshim_version: ['i32', []],
  dalshim_last_error: ['str', []],
  dalshim_last_error_code: ['i32', []],
  dalshim_load: ['i32', ['cstr']],
  dalshim_library_path: ['str', []],
  dalshim_dal_version: ['i32', []],
  dalshim_open: ['i64', ['cstr', 'cstr']],
  dalshim_close: ['i32', ['i64']],
  dalshim_query: ['ptr', ['i64', 'buf', 'usize']],
  dalshim_buffer_size: ['i64', ['ptr']],
  dalshim_free: ['i32', ['ptr']],
  dalshim_query_into: ['i64', ['i64', 'buf', 'usize', 'buf', 'usize']],
  dalshim_take_pending: ['i64', ['buf', 'usize']],
  dalshim_stat: ['i64', ['i32', 'i32']],
  dalshim_exec: ['i32', ['i64', 'buf', 'usize', 'buf', 'usize']],

  dalmon_version: ['i32', []],
  dalmon_last_error: ['str', []],
  dalmon_last_error_code: ['i32', []],
  dalmon_start: ['i64', ['cstr']],
  dalmon_mark_startup: ['i32', ['i64', 'i64', 'i64']],
  dalmon_sample: ['i32', ['i64', 'i64', 'i64', 'i64', 'i64', 'i64']],
  dalmon_record_latency_ns: ['i32', ['i64', 'i64']],
  dalmon_record_latencies_ns: ['i32', ['i64', 'buf', 'usize']],
  dalmon_count: ['i32', ['i64', 'i64', 'i64', 'i64', 'i64']],
  dalmon_fail: ['i32', ['i64', 'cstr']],
  dalmon_finish: ['i32', ['i64']],
  dalmon_report_text: ['i64', ['i64', 'buf', 'usize']],
  dalmon_report_json: ['i64', ['i64', 'buf', 'usize']],
  dalmon_write_json: ['i32', ['i64', 'cstr']],
  dalmon_end: ['i32', ['i64']],
  dalmon_now_ns: ['i64', []],
  dalmon_rss_bytes: ['i64', []],
};

// Symbols being added to the ABI; a binding resolves them when the loaded
// library has them and leaves them null otherwise.
export const OPTIONAL_SYMBOLS = {
  dalshim_code_name: ['str', ['i32']],
  dalmon_mark_interrupted: ['i32', ['i64', 'cstr']],
};

// The shim's flag for dalshim_stat: a full Go GC before reading.
export const STATS_FORCE_GC = 1;

// A JS string as a NUL-terminated UTF-8 C string.  A string that contains
// NUL itself is refused: C would silently read only the part before it.
const utf8 = new TextEncoder();
export function cString(s, what) {
  if (typeof s !== 'string') throw new TypeError(`${what}: expected a string, got ${typeof s}`);
  if (s.includes('\0')) throw new TypeError(`${what}: contains a NUL character`);
  const bytes = utf8.encode(s);
  const out = new Uint8Array(bytes.length + 1); // zero-filled: out[length] is the NUL
  out.set(bytes);
  return out;
}

// The libdalshim.so to load: $DALKIT_SHIM, else build/out/ of this checkout
// (the README's build).  Runtime-neutral: the caller passes its env reader.
export function shimPath(getEnv) {
  const fromEnv = getEnv('DALKIT_SHIM');
  if (fromEnv) return fromEnv;
  return new URL('../build/out/libdalshim.so', import.meta.url).pathname;
}
