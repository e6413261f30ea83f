// binding.js -- the Node addon as a stress binding (stress/js/driver.js).
import process from 'node:process';

export async function createBinding() {
  // Imported lazily so that `--help` and bad flags work without a build.
  const { open, load, native } = await import('../../lib/index.js');
  if (typeof globalThis.gc !== 'function') {
    throw new Error('the stress driver needs node --expose-gc (stress/node/main.js adds it)');
  }
  return {
    name: 'node-addon',
    runtime: `node ${process.version} napi ${native.napiVersion}`,
    moduleUrl: import.meta.url,
    load() { load(); },
    open({ dir, options }) { return open({ dir, options }); },
    monitor: native.monitor,
    gc() { globalThis.gc(); },
    memory() {
      // heapUsed/heapTotal of this isolate (each worker_thread reports its
      // own).  js_external: V8's external memory (array buffers included)
      // plus the native bytes the addon holds for JS on this thread, which
      // it reports with AdjustExternalMemory but V8 does not show in
      // memoryUsage() (addon/src/external_memory.hpp).
      const m = process.memoryUsage();
      return { jsHeapUsed: m.heapUsed, jsHeapTotal: m.heapTotal, jsExternal: m.external + native.externalBytes(), jsArrayBuffers: m.arrayBuffers };
    },
  };
}
