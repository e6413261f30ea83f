// workloads-match.test.js -- dal_floor_bench writes each workload out by hand
// (stress/bench/floor/workload.cpp: no template interpreter in its timed
// loop). This test holds those hand-written requests and expected answers to
// the workload files themselves: `dal_floor_bench --dump` prints every seed
// request and threads 0 and 1's first two cycles, and each must equal, as a
// MessagePack value, what stress/workloads/<name>.json expands to through
// stress/js/workload-spec.js, the loader every JS driver uses.
//
//   DAL_FLOOR_BENCH=build/out/dal_floor_bench node --test stress/bench/floor/workloads-match.test.js
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { inspect } from 'node:util';

import { WORKLOAD_NAMES, loadWorkload } from '../../js/workload-spec.js';
import { decode, equalsEncoded } from '../../js/workload-msgpack.js';

const bench = process.env.DAL_FLOOR_BENCH;
if (!bench) throw new Error('set DAL_FLOOR_BENCH to the dal_floor_bench executable');

const dumped = execFileSync(bench, ['--dump', '--workload', WORKLOAD_NAMES.join(',')], {
  encoding: 'utf8',
  maxBuffer: 64 << 20,
}).trim().split('\n').map((line) => line.split(' '));

function sameValue(hex, want, what) {
  const bytes = Buffer.from(hex, 'hex');
  if (equalsEncoded(bytes, bytes.length, want)) return;
  let got;
  try {
    got = inspect(decode(bytes), { depth: null });
  } catch (e) {
    got = `undecodable (${e.message})`;
  }
  assert.fail(`${what}:\n got ${got}\nwant ${inspect(want, { depth: null })}`);
}

for (const name of WORKLOAD_NAMES) {
  test(`${name}: dal_floor_bench sends the workload's requests and expects its answers`, () => {
    const spec = loadWorkload(name);
    const lines = dumped.filter((f) => f[0] === name);

    const seeds = [...spec.seedQueries()];
    const mySeeds = lines.filter((f) => f[1] === 'seed');
    assert.equal(mySeeds.length, seeds.length, 'seed requests');
    seeds.forEach((q, k) => {
      sameValue(mySeeds[k][3], { id: q.id, db: spec.db, commands: q.commands }, `seed ${k} request`);
      sameValue(mySeeds[k][4], q.expect, `seed ${k} answer`);
    });

    const queries = lines.filter((f) => f[1] !== 'seed');
    assert.equal(queries.length, 2 * 2 * spec.steps.length, 'two cycles of two threads');
    for (const [, t, n, request, answer] of queries) {
      const q = spec.query(Number(t), Number(n));
      sameValue(request, { id: q.id, db: spec.db, commands: q.commands }, `thread ${t} query ${n} request`);
      sameValue(answer, q.expect, `thread ${t} query ${n} answer`);
    }
  });
}
