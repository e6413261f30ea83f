// goleak.mjs -- a --target over the Go c-shared fixture (test fixture:
// goleak/goleak.go, built as build/tests/targets/libgoleak.so; docs/targets.md
// "Leak fixtures").  Each iteration asks Go for a label (a C.CString of
// `bytes` bytes with its NUL), checks it, and gives it back with goleak_free
// unless leaking: the caller's forgotten free of a real cgo binding.
// Through the runtime's FFI: bun:ffi under Bun, Deno.dlopen under Deno,
// koffi under Node -- there from a worker (--workers 1): on Node's main
// thread every call into Go pays a stack-bounds refresh (golang/go#62440,
// ffi/README.md).
//
//   --target-option mode=clean|leak|step, bytes=, step_bytes=, step_at=,
//                   library=   (fixture-options.js)
//
//   npm run stress -- --target tests/targets/goleak.mjs --workers 1 --target-option mode=leak --iterations 1000000
//   bun stress.ts --target tests/targets/goleak.mjs --target-option mode=leak --iterations 1000000
//   npm run stress:deno -- --target tests/targets/goleak.mjs --target-option mode=step
import { fixtureOptions } from './fixture-options.js';

/** The text of a NUL-terminated string in a Node Buffer (its NUL included), or null without the NUL. */
function cString(bytes) {
  const n = bytes.indexOf(0);
  return n < 0 ? null : bytes.latin1Slice(0, n);
}

/** {label(i, size) -> pointer|null, read(pointer, size) -> string, reserve(size), free(pointer), live(), close()} */
async function bind(runtime, file) {
  if (runtime === 'bun') {
    const { dlopen, FFIType, CString } = await import('bun:ffi');
    const lib = dlopen(file, {
      goleak_label: { args: [FFIType.i64, FFIType.i32], returns: FFIType.ptr },
      goleak_reserve: { args: [FFIType.i64], returns: FFIType.ptr },
      goleak_free: { args: [FFIType.ptr], returns: FFIType.void },
      goleak_live: { args: [], returns: FFIType.i64 },
    });
    const f = lib.symbols;
    return {
      label: (i, size) => f.goleak_label(i, size), read: (p) => new CString(p).toString(),
      reserve: (n) => f.goleak_reserve(n), free: (p) => f.goleak_free(p),
      live: () => Number(f.goleak_live()), close: () => lib.close(),
    };
  }
  if (runtime === 'deno') {
    const lib = Deno.dlopen(file, {
      goleak_label: { parameters: ['i64', 'i32'], result: 'pointer' },
      goleak_reserve: { parameters: ['i64'], result: 'pointer' },
      goleak_free: { parameters: ['pointer'], result: 'void' },
      goleak_live: { parameters: [], result: 'i64' },
    });
    const f = lib.symbols;
    return {
      label: (i, size) => f.goleak_label(i, size), read: (p) => Deno.UnsafePointerView.getCString(p),
      reserve: (n) => f.goleak_reserve(n), free: (p) => f.goleak_free(p),
      live: () => Number(f.goleak_live()), close: () => lib.close(),
    };
  }
  const { default: koffi } = await import('koffi');
  const lib = koffi.load(file);
  // void *, not char *: koffi would copy a char * into a JS string and drop
  // the pointer the caller has to free.
  const label = lib.func('void *goleak_label(int64_t i, int32_t size)');
  const reserve = lib.func('void *goleak_reserve(int64_t size)');
  const free = lib.func('void goleak_free(void *p)');
  const live = lib.func('int64_t goleak_live(void)');
  return {
    // koffi.view, not koffi.decode(p, 'char', -1): koffi 3.3.4's decode keeps
    // about 18 B of malloc per call (measured: linear over 1,000,000 calls,
    // after GC, with and without a worker), which would make every mode leak.
    label, read: (p, size) => cString(Buffer.from(koffi.view(p, size))), reserve, free,
    live: () => Number(live()), close: () => lib.unload(),
  };
}

/** @type {import('../../lib/index.js').Target<object>} */
export default {
  name: 'Go c-shared fixture: C.CString',

  async setup(ctx) {
    const s = fixtureOptions(ctx, 'libgoleak.so');
    return { ...s, go: await bind(ctx.runtime, s.library), leak: s.mode === 'leak', step: null, alone: ctx.workers <= 1 };
  },

  iteration(s, i) {
    const p = s.go.label(i, s.bytes);
    if (!p) throw new Error(`goleak_label(${i}, ${s.bytes}) returned NULL`);
    const text = s.go.read(p, s.bytes);
    const want = String(i).padStart(s.bytes - 1, '0').slice(-(s.bytes - 1));
    if (s.bytes > 1 && text !== want) throw new Error(`goleak_label(${i}) gave '${text}', not '${want}'`);
    if (!s.leak) s.go.free(p);
    if (s.mode === 'step' && i === s.stepIteration) {
      s.step = s.go.reserve(s.stepBytes);
      if (!s.step) throw new Error(`goleak_reserve(${s.stepBytes}) returned NULL`);
    }
  },

  teardown(s) {
    if (s.step) s.go.free(s.step);
    // goleak_live() counts the process's blocks: every thread's, so only alone.
    if (!s.leak && s.alone && s.go.live() !== 0) throw new Error(`${s.go.live()} Go blocks not freed in a ${s.mode} run`);
    s.go.close();
  },
};
