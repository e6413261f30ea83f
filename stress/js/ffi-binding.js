// stress/js/ffi-binding.js -- the FFI bindings (ffi/) as stress bindings for
// stress/js/driver.js: Bun (bun:ffi), Deno (Deno.dlopen) or, under Node,
// koffi -- whichever runtime imports it.  It also serves --workers: each
// worker_thread imports this module (moduleUrl) and builds its own binding.
//
// JS memory comes from the runtime itself; GC is forced where it allows:
//   Bun   process.memoryUsage() (JSC heap, external, arrayBuffers); Bun.gc(true)
//   Deno  Deno.memoryUsage() (V8 heap, external; no arrayBuffers figure);
//         V8's gc() (see denoGc)
//   Node  v8.getHeapStatistics() + process.memoryUsage(); node --expose-gc
// The Go heap and every native figure come from the DAL through the monitor.
import { createMonitor } from './ffi-monitor.js';

const runtime = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node';

async function runtimeParts() {
  if (runtime === 'bun') {
    const { default: process } = await import('node:process');
    return {
      gc: () => Bun.gc(true),
      memory: () => {
        const m = process.memoryUsage();
        return { jsHeapUsed: m.heapUsed, jsHeapTotal: m.heapTotal, jsExternal: m.external, jsArrayBuffers: m.arrayBuffers ?? -1 };
      },
    };
  }
  if (runtime === 'deno') {
    return {
      gc: await denoGc(),
      memory: () => {
        const m = Deno.memoryUsage();
        return { jsHeapUsed: m.heapUsed, jsHeapTotal: m.heapTotal, jsExternal: m.external, jsArrayBuffers: -1 };
      },
    };
  }
  if (typeof globalThis.gc !== 'function') {
    throw new Error('the koffi stress driver needs node --expose-gc (stress/node/main.js adds it)');
  }
  const { default: v8 } = await import('node:v8');
  const { default: process } = await import('node:process');
  return {
    gc: () => globalThis.gc(),
    memory: () => {
      const h = v8.getHeapStatistics();
      const m = process.memoryUsage();
      return { jsHeapUsed: h.used_heap_size, jsHeapTotal: h.total_heap_size, jsExternal: m.external, jsArrayBuffers: m.arrayBuffers };
    },
  };
}

// V8's gc() under Deno: the global one with --v8-flags=--expose-gc (the
// documented commands give it), else the same extension enabled at run time
// (V8 flag set, then read from a fresh context), so a command without the
// flag still runs.  The fallback's collection is the same full, synchronous
// one, but each costs about twice the CPU (a perf profile of 150 gc() calls
// on a bare Deno 2.9: the same functions, 1.8x the samples; docs/benchmarks.md),
// and a sample makes two.
async function denoGc() {
  if (typeof globalThis.gc === 'function') return () => globalThis.gc();
  const { default: v8 } = await import('node:v8');
  const { default: vm } = await import('node:vm');
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('cannot force V8 GC under Deno: run with --v8-flags=--expose-gc');
  return () => gc();
}

// koffi on Node's main thread: every call into Go refreshes the thread's
// stack bounds (ffi/koffi.js); said once, with the way around it.
const KOFFI_MAIN_THREAD_NOTE = 'koffi on the main thread: every call into the Go DAL pays a stack-bounds refresh ' +
  '(pthread_getattr_np reads /proc/self/maps; golang/go#62440), ~0.1-0.5 ms per query instead of ~6 us. ' +
  'Add --workers 1 to call from a worker_thread (docs/benchmarks.md).\n';

/** @param {object} [o] the driver's parsed flags (stress/js/options.js), when known */
export async function createBinding(o) {
  if (runtime === 'node' && o && o.workers === 0) process.stderr.write(KOFFI_MAIN_THREAD_NOTE);
  const ffi = await import(runtime === 'bun' ? '../../ffi/bun.js' : runtime === 'deno' ? '../../ffi/deno.js' : '../../ffi/koffi.js');
  const b = ffi.binding();
  const { gc, memory } = await runtimeParts();
  return {
    name: b.name,
    runtime: b.runtime,
    moduleUrl: import.meta.url,
    load() {
      // dalshim_load(NULL): $DAL_LIBRARY or libdal.so beside libdalshim.so.
      const rc = b.raw.dalshim_load(null);
      if (rc < 0) throw new Error(`dalshim_load: ${b.raw.dalshim_last_error()}`);
    },
    open: ffi.open,
    monitor: createMonitor(b),
    gc,
    memory,
  };
}
