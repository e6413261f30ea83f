// ffi/abi.js -- the C ABI of libdalshim.so (dal-shim/include/dalshim.h and
// dalmonitor.h) as one table of signatures, written once in abstract types.
// ffi/bun.js, ffi/deno.js and ffi/koffi.js map these types to their runtime's
// FFI vocabulary, so the three bindings cannot drift apart.
//
// Abstract types, and the C types of the headers they stand for
// (tests/node/abi-table.test.js parses the headers and checks every entry
// against this mapping):
//   i32, i64, usize  int32_t, int64_t, size_t (i64 results: number, or
//                    BigInt beyond 2^53)
//   buf              a pointer parameter followed by its size_t length
//                    (const void *req, size_t len; char *buf, size_t cap;
//                    const char *sql, size_t sql_len), or a pointer to an
//                    integer array or slot the caller owns (int64_t *,
//                    int32_t *): a JS Uint8Array / Int32Array /
//                    BigInt64Array passed by address for the duration of
//                    the call; never retained by C
//   cstr             a const char * parameter without a length: a
//                    NUL-terminated Uint8Array made by cString() -- never a
//                    JS buffer without its NUL
//   ptr              a void * parameter without a length, or a void *
//                    result: an opaque native pointer returned by
//                    dalshim_query / dalshim_query_ex and handed back to
//                    dalshim_buffer_size / dalshim_free
//   str              a const char * result: owned by the library, read at
//                    once into a JS string
//   void             a void result

export const SYMBOLS = {
  dalshim_version: ['i32', []],
  dalshim_code_name: ['str', ['i32']],
  dalshim_last_error: ['str', []],
  dalshim_last_error_code: ['i32', []],
  dalshim_load: ['i32', ['cstr']],
  dalshim_library_path: ['str', []],
  dalshim_dal_version: ['i32', []],
  dalshim_open: ['i64', ['cstr', 'cstr']],
  dalshim_close: ['i32', ['i64']],
  dalshim_query: ['ptr', ['i64', 'buf', 'usize']],
  dalshim_query_ex: ['ptr', ['i64', 'buf', 'usize', 'buf']],
  dalshim_buffer_size: ['i64', ['ptr']],
  dalshim_free: ['i32', ['ptr']],
  dalshim_query_into: ['i64', ['i64', 'buf', 'usize', 'buf', 'usize']],
  dalshim_take_pending: ['i64', ['buf', 'usize']],
  dalshim_exec: ['i32', ['i64', 'buf', 'usize', 'buf', 'usize']],
  dalshim_stats: ['i32', ['i32', 'buf', 'i32']],
  dalshim_stat: ['i64', ['i32', 'i32']],

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
  dalmon_mark_interrupted: ['i32', ['i64', 'cstr']],
  dalmon_finish: ['i32', ['i64']],
  dalmon_borderline: ['i32', ['i64']],
  dalmon_mark_confirmation: ['i32', ['i64', 'i64']],
  dalmon_report_text: ['i64', ['i64', 'buf', 'usize']],
  dalmon_report_json: ['i64', ['i64', 'buf', 'usize']],
  dalmon_write_json: ['i32', ['i64', 'cstr']],
  dalmon_end: ['i32', ['i64']],
  dalmon_now_ns: ['i64', []],
  dalmon_rss_bytes: ['i64', []],
};

// The headers' result codes (DALSHIM_* of dalshim.h, DALMON_* of
// dalmonitor.h) and stat indices, for the JS that needs a number: every
// binding, test and benchmark takes them from here, and
// tests/node/abi-table.test.js checks each value against the #define of
// the same name.  Names for messages come from dalshim_code_name(), never
// from these keys.
export const CODES = Object.freeze({
  DALSHIM_OK: 0,
  DALSHIM_E_HANDLE: -1,
  DALSHIM_E_NULL: -2,
  DALSHIM_E_DECODE: -3,
  DALSHIM_E_TOO_LARGE: -4,
  DALSHIM_E_REQUEST: -5,
  DALSHIM_E_DATABASE: -6,
  DALSHIM_E_MISUSE: -7,
  DALSHIM_E_INTERNAL: -8,
  DALSHIM_E_NOMEM: -9,
  DALSHIM_E_OPTIONS: -10,
  DALSHIM_E_LIMIT: -11,
  DALSHIM_E_LOAD: -20,
  DALSHIM_E_VERSION: -21,
  DALSHIM_E_DOUBLE_FREE: -22,
  DALSHIM_E_FOREIGN_POINTER: -23,
  DALSHIM_E_CLOSED: -24,
  DALSHIM_E_SQL: -25,
  DALSHIM_E_RESPONSE: -26,
  DALSHIM_E_ARG: -27,
  DALSHIM_E_LOADED: -28,
  DALMON_OK: 0,
  DALMON_E_RUN: -101,
  DALMON_E_NULL: -102,
  DALMON_E_PARAMS: -103,
  DALMON_E_STATE: -104,
  DALMON_E_RANGE: -105,
  DALMON_E_IO: -106,
  DALMON_E_INTERNAL: -108,
  DALMON_E_NOMEM: -109,
  DALMON_E_LIMIT: -110,
});

// dalshim_stat / dalshim_stats indices (DALSHIM_STAT_* of dalshim.h).
export const STATS = Object.freeze({
  DALSHIM_STAT_CALLS: 0,
  DALSHIM_STAT_REQUEST_BYTES: 1,
  DALSHIM_STAT_RESPONSE_BYTES: 2,
  DALSHIM_STAT_ERRORS: 3,
  DALSHIM_STAT_BUFFERS_LIVE: 4,
  DALSHIM_STAT_BUFFER_BYTES_LIVE: 5,
  DALSHIM_STAT_MALLOC_INUSE: 6,
  DALSHIM_STAT_HANDLES_OPEN: 7,
  DALSHIM_STAT_PLANTED_BYTES: 8,
  DALSHIM_STAT_COUNT: 9,
  DALSHIM_STAT_DAL_BASE: 9,
  DALSHIM_STAT_TOTAL: 30,
});

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
