// binding.js -- the Node addon as a stress binding (stress/js/driver.js).
import v8 from 'node:v8';
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
      // heapUsed/heapTotal of this isolate; external includes arrayBuffers
      // and what addons report with AdjustExternalMemory.
      const h = v8.getHeapStatistics();
      const m = process.memoryUsage();
      return { jsHeapUsed: h.used_heap_size, jsHeapTotal: h.total_heap_size, jsExternal: m.external, jsArrayBuffers: m.arrayBuffers };
    },
  };
}
