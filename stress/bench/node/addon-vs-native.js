// addon-vs-native.js -- the reference query through the Node addon (into,
// raw, builder) against the native direct path (dalstress: a C++ loop calling
// dalshim_query_into through the PLT), in one run on the same data
// directory, interleaved rounds, medians.  Reported, not tested.
//
//   node stress/bench/node/addon-vs-native.js [--rounds 5] [--queries 200000]
//   (DALKIT_OUT=build-x/out to use another build directory)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { argInt, fmt, interleave, outDir } from './common.js';

const { open } = await import('../../../lib/index.js');
const { REFERENCE_REQUEST, REFERENCE_RESPONSE, referenceQuery } = await import('../../js/workload.js');
const { rate } = await import('./common.js');

const rounds = argInt('--rounds', 5);
const n = argInt('--queries', 200000);
const dir = mkdtempSync(join(tmpdir(), 'dalkit-bench-'));
const db = open({ dir });
const target = new Uint8Array(4096);
const check = (ok) => { if (!ok) throw new Error('wrong answer'); };

function native() {
  // dalstress in its default mode (into, direct), on the same directory;
  // sampling kept to 10 samples so it costs what the JS loops do not pay.
  const json = join(dir, 'native.json');
  const r = spawnSync(join(outDir, 'dalstress'), ['--queries', String(n), '--sample-every', String(Math.ceil(n / 10)),
    '--db-dir', dir, '--json', json, '--progress', 'off'], { encoding: 'utf8' });
  if (r.error) throw new Error(`cannot run ${join(outDir, 'dalstress')}: ${r.error.message} (build it, or set DALKIT_OUT)`);
  if (r.status !== 0) throw new Error(`dalstress exited ${r.status}: ${r.stderr}`);
  return JSON.parse(readFileSync(json, 'utf8')).timing.queries_per_second;
}

const methods = {
  native: () => native(),
  into: () => rate(n, () => check(db.queryInto(REFERENCE_REQUEST, target) === REFERENCE_RESPONSE.length)),
  raw: () => rate(n, () => check(db.queryRaw(REFERENCE_REQUEST).length === REFERENCE_RESPONSE.length)),
  builder: () => rate(n, () => {
    try { referenceQuery(db).all(); } catch (e) { check(e.code === 'DALSHIM_E_SQL'); return; }
    check(false);
  }),
};
const res = await interleave(methods, rounds);
db.close();
rmSync(dir, { recursive: true, force: true });

console.log(`node ${process.version}, ${process.execArgv.join(' ') || 'default V8 flags'}; ${rounds} rounds x ${fmt(n)} reference queries; medians`);
console.log('| path | queries/s | µs/query | vs native |');
console.log('|---|---:|---:|---:|');
for (const [name, { median: q }] of Object.entries(res)) {
  console.log(`| ${name} | ${fmt(q)} | ${(1e6 / q).toFixed(2)} | ${(q / res.native.median).toFixed(2)}x |`);
}
