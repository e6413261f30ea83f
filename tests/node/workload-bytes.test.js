// The query bytes the JS drivers write from a workload's templates
// (stress/js/workload-bytes.js), held to the values they stand for:
//   - each request is byte for byte what encoding the expanded request
//     gives (the bytes the loops sent before);
//   - each expected answer is an encoding of the expanded expect that the
//     value walk accepts (so a byte-equal answer is a right answer), and
//     decodes to it;
//   - against this build's DAL every answer of every shipped workload is
//     byte-equal (the walk is never needed), and a wrong expected value is
//     still a wrong answer with the walk's message.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { open } from '../../lib/index.js';
import { WireQueries } from '../../stress/js/workload-bytes.js';
import { firstDifference } from '../../stress/js/workload-check.js';
import { Writer, decode, equalsEncoded } from '../../stress/js/workload-msgpack.js';
import { WORKLOAD_NAMES, loadWorkload, parseWorkload, workloadPath } from '../../stress/js/workload-spec.js';
import { Workload, setUpWorkload } from '../../stress/js/workload.js';
import { tempDir, hex } from './helpers.js';

const tmp = tempDir();
after(() => tmp.cleanup());

// Every query of threads 0..threads-1 over `queries` query numbers, and a
// few far ones (large cycle numbers, ids in another range).
function* queryNumbers(spec, queries, threads) {
  for (let t = 0; t < threads; t++) {
    for (let n = 0; n < queries; n++) yield [t, n];
    for (const far of [123_456, 9_999_999]) for (let n = far; n < far + spec.steps.length; n++) yield [t, n];
  }
}

function checkAll(spec, queries, threads = 3) {
  const wire = new WireQueries(spec);
  const env = new Array(spec.slots);
  const writer = new Writer();
  let checked = 0;
  for (const [t, n] of queryNumbers(spec, queries, threads)) {
    const q = spec.query(t, n);
    const k = spec.bind(t, n, env);
    const request = wire.request(k, env);
    const want = writer.encode({ id: q.id, db: spec.db, commands: q.commands });
    if (hex(request) !== hex(want)) assert.fail(`${spec.name} t ${t} n ${n}: request ${hex(request)}, expected ${hex(want)}`);
    const answer = wire.answer(k, env);
    if (!equalsEncoded(answer, answer.length, q.expect)) assert.fail(`${spec.name} t ${t} n ${n}: the value walk refuses ${hex(answer)}`);
    assert.equal(firstDifference(q.expect, decode(answer)), null);
    checked++;
  }
  return { checked, wire };
}

test('every shipped workload: requests as encoded from the expanded values, answers accepted by the value walk', () => {
  for (const name of WORKLOAD_NAMES) {
    const spec = loadWorkload(name);
    // Whole cycles of every let: mixed's and write's rid repeat after 1,000 cycles.
    const { checked, wire } = checkAll(spec, spec.steps.length * 1_001);
    assert.ok(checked > 0, name);
    // rows: one tail per key, kept (100 keys: nearly every lookup hits).
    if (name === 'rows') assert.ok(wire.steps[0].table.on && wire.steps[0].table.hits > 0.9 * wire.steps[0].table.lookups);
  }
});

// The forms the shipped workloads do not reach: a literal id above 127
// (unsigned in the answer), integers in every width and sign, a float with
// an integral value, long and non-ASCII strings, arrays of 16 and more,
// no rows, a negative number in a string.
const EDGES = JSON.stringify({
  format: 1, name: 'edges', db: 'edges.sqlite',
  steps: [
    {
      id: 300,
      commands: [{ method: 'In', args: ['t'] }, { method: 'Find', args: [{ a: 200, b: -200, c: 70000, d: -70000, e: 2 ** 40, f: -(2 ** 40) }] }],
      expect: { i: 300, c: ['x'], r: [] },
    },
    {
      let: { v: 'n * 1000 - 5000' },
      commands: [{ method: 'In', args: ['t'] }, { method: 'Find', args: [{ s: { $str: 'é-{v}-{n}' }, big: { $: 'v * 100000' } }] }],
      expect: {
        i: { $: 'id' }, c: ['a', 'b', 'c'],
        r: { $repeat: { var: 'x', from: 'v', count: 'n % 40', item: [{ $: 'x * 1000' }, { $str: `${'long '.repeat(10)}{x}` }, { $real: 'x * 2' }] } },
      },
    },
    {
      commands: [{ method: 'In', args: ['t'] }, { method: 'Find', args: [{ k: { $repeat: { var: 'x', count: 20, item: { $: 'x - 10' } } } }] }],
      expect: { i: { $: 'id' }, ra: { $: 'n * 300' }, li: { $: '0 - n * 300' }, e: { $str: '{n}' } },
    },
  ],
});

test('edge forms: literal ids, every integer width, long and non-ASCII strings, long arrays, no rows', () => {
  // Past the tail table's trial (workload-bytes.js TAIL_TRIAL, 4,096 lookups
  // a step): steps 2 and 3 never repeat, so their tables are dropped there.
  const { checked, wire } = checkAll(parseWorkload(EDGES), 3 * 4_200, 1);
  assert.ok(checked > 0);
  assert.equal(wire.steps[0].constant !== null, true, 'step 1 never changes');
  assert.equal(wire.steps[1].table.on, false, 'step 2: tails that never repeat are written per query');
  assert.equal(wire.steps[2].table.on, false, 'step 3 likewise');
});

// A workload through the addon: errors and answers that were right only by value.
function runWorkload(spec, queries) {
  const db = open({ dir: tmp.dir });
  try {
    db.use(spec.db);
    setUpWorkload(db, spec);
    const messages = [];
    const wl = new Workload({ db, spec, api: 'into', latencyEvery: 16, onError: (m) => messages.push(m) });
    let valueChecked = 0;
    let errors = 0;
    for (let done = 0; done < queries;) {
      done += wl.run(Math.min(1024, queries - done));
      valueChecked += wl.valueChecked;
      wl.valueChecked = 0;
      errors += wl.errors;
      wl.errors = 0;
      wl.latencyCount = 0;
    }
    return { errors, valueChecked, messages };
  } finally {
    db.close();
  }
}

test('this DAL: every answer of every shipped workload is byte-equal to the expected bytes', () => {
  for (const name of WORKLOAD_NAMES) {
    const spec = loadWorkload(name);
    const r = runWorkload(spec, Math.max(300, spec.steps.length * 40));
    assert.deepEqual(r, { errors: 0, valueChecked: 0, messages: [] }, name);
  }
});

test('a wrong expected value is still a wrong answer, named by request id and path', () => {
  const text = readFileSync(workloadPath('rows'), 'utf8');
  const wrong = text.replace('{"$": "row * 7 % 100"}', '{"$": "row * 7 % 100 + 1"}');
  assert.notEqual(wrong, text);
  const r = runWorkload(parseWorkload(wrong), 20);
  assert.equal(r.errors, 20);
  assert.match(r.messages[0], /^wrong answer to request \d+: r\[0\]\[3\]: expected integer \d+, got integer \d+$/);
});
