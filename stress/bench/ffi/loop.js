// stress/bench/ffi/loop.js -- one timed loop of the reference query through an
// FFI binding of libdalshim.so, in whichever runtime runs it (Bun, Deno, or
// Node with koffi).  Prints one JSON line {path, queries, seconds, qps, usPerQuery}.
// Run by stress/bench/ffi/run.mjs; not a test (timings are never pass/fail).
//
//   args: DIR QUERIES [api] [thread]
//     api     into (dalshim_query_into, reused buffer; default) | builder
//     thread  main (default) | worker  (koffi: the loop runs in a worker_thread)
import process from 'node:process';
import { isMainThread } from 'node:worker_threads';

const rt = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'koffi';
const [dir, queriesText, api = 'into', thread = 'main'] = process.argv.slice(2);
const queries = Number(queriesText);

async function loop(dirArg, n, apiArg) {
  const { open } = await import(`../../../ffi/${rt}.js`);
  const { CODES } = await import('../../../ffi/abi.js');
  const { REFERENCE_REQUEST, REFERENCE_RESPONSE, referenceQuery } = await import('../../js/workload.js');
  const db = open({ dir: dirArg });
  const t = new Uint8Array(4096);
  const last = REFERENCE_RESPONSE.length - 1;
  let bad = 0;
  const one = apiArg === 'builder'
    ? () => { try { referenceQuery(db).all(); bad++; } catch (e) { if (e.errno !== CODES.DALSHIM_E_SQL) bad++; } }
    : () => { const m = db.queryInto(REFERENCE_REQUEST, t); if (m !== 34 || t[last] !== REFERENCE_RESPONSE[last]) bad++; };
  for (let i = 0; i < Math.min(20000, n); i++) one(); // warm-up (JIT, statement cache)
  const t0 = performance.now();
  for (let i = 0; i < n; i++) one();
  const seconds = (performance.now() - t0) / 1000;
  db.close();
  if (bad) throw new Error(`${bad} wrong answers`);
  return seconds;
}

export const run = loop;

let seconds;
if (!isMainThread) {
  // imported by the worker below for run(): nothing to do at load
} else if (thread === 'worker') {
  const { Worker } = await import('node:worker_threads');
  const src = `import { parentPort, workerData } from 'node:worker_threads';
    const { run } = await import(workerData.self);
    parentPort.postMessage(await run(workerData.dir, workerData.queries, workerData.api));`;
  seconds = await new Promise((resolve, reject) => {
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(src)}`),
      { workerData: { self: import.meta.url, dir, queries, api } });
    w.once('message', resolve);
    w.once('error', reject);
  });
} else {
  seconds = await loop(dir, queries, api);
}

if (seconds !== undefined) {
  const path = `${rt === 'koffi' ? `koffi (${thread} thread)` : `${rt} ffi`} ${api}`;
  process.stdout.write(`${JSON.stringify({ path, queries, seconds, qps: queries / seconds, usPerQuery: (seconds * 1e6) / queries })}\n`);
}
