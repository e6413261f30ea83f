// libc-ffi.mjs -- a --target (docs/targets.md): calls into libc through the
// runtime's own FFI: bun:ffi under Bun, Deno.dlopen under Deno, koffi under
// Node (an npm devDependency).  Each iteration calls strlen on a
// JS-owned buffer and getpid, and checks both.  Clean: NO LEAK.
//
//   npm run stress -- --target stress/targets/libc-ffi.mjs --iterations 200000
//   bun stress.ts --target stress/targets/libc-ffi.mjs --iterations 200000
//   npm run stress:deno -- --target stress/targets/libc-ffi.mjs --iterations 200000
import process from 'node:process';

const LIBC = 'libc.so.6';

async function bindLibc(runtime) {
  if (runtime === 'bun') {
    const { dlopen, FFIType } = await import('bun:ffi');
    const lib = dlopen(LIBC, {
      strlen: { args: [FFIType.ptr], returns: FFIType.u64_fast },
      getpid: { args: [], returns: FFIType.i32 },
    });
    return { strlen: (buf) => Number(lib.symbols.strlen(buf)), getpid: () => lib.symbols.getpid(), close: () => lib.close() };
  }
  if (runtime === 'deno') {
    const lib = Deno.dlopen(LIBC, {
      strlen: { parameters: ['buffer'], result: 'usize' },
      getpid: { parameters: [], result: 'i32' },
    });
    return { strlen: (buf) => Number(lib.symbols.strlen(buf)), getpid: () => lib.symbols.getpid(), close: () => lib.close() };
  }
  const { default: koffi } = await import('koffi');
  const lib = koffi.load(LIBC);
  const strlen = lib.func('size_t strlen(const uint8_t *s)');
  const getpid = lib.func('int getpid(void)');
  return { strlen: (buf) => Number(strlen(buf)), getpid: () => getpid(), close: () => lib.unload() };
}

/** @type {import('../../lib/index.js').Target<object>} */
export default {
  name: 'libc strlen + getpid through the runtime FFI',

  async setup(ctx) {
    const libc = await bindLibc(ctx.runtime);
    // NUL-terminated strings of 1..64 bytes, made once: strlen reads them in place.
    const strings = [];
    for (let n = 1; n <= 64; n++) {
      const b = new Uint8Array(n + 1).fill(0x61);
      b[n] = 0;
      strings.push(b);
    }
    return { libc, strings, pid: process.pid };
  },

  iteration(s, i) {
    const b = s.strings[i % s.strings.length];
    const n = s.libc.strlen(b);
    if (n !== b.length - 1) throw new Error(`strlen gave ${n}, not ${b.length - 1}`);
    const pid = s.libc.getpid();
    if (pid !== s.pid) throw new Error(`getpid gave ${pid}, not ${s.pid}`);
  },

  teardown(s) {
    s.libc.close();
  },
};
