// number-cases.test.js -- the JS drivers' parseCount (stress/js/options.js;
// stress:compare uses it too) against the kit's one table of number cases,
// tests/common/number-cases.json, which tests/shim/numbers_test.cpp runs
// against dalkit::parse_int (dalstress, dalmon_start): one grammar, two
// parsers, the same answers.  Pure JS, no build needed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { UsageError, parseCount, parseOptions } from '../../stress/js/options.js';

const { cases } = JSON.parse(readFileSync(new URL('../common/number-cases.json', import.meta.url), 'utf8'));

test('parseCount gives every case of tests/common/number-cases.json its value or an error', () => {
  assert.ok(cases.length >= 50, `${cases.length} cases`);
  for (const c of cases) {
    const what = `'${c.text}' in ${c.lo}..${c.hi}`;
    if (c.value === 'error') {
      assert.throws(() => parseCount(c.text, '--n', c.lo, c.hi),
        (e) => e instanceof UsageError && e.message === `option --n: '${c.text}' is not an integer in ${c.lo}..${c.hi}`, what);
    } else {
      assert.equal(parseCount(c.text, '--n', c.lo, c.hi), c.value, what);
    }
  }
});

test('the driver flags read counts through it', () => {
  const o = parseOptions(['--queries', '2.5e6', '--workers', '+2', '--sample-every', '1_000', '--max-errors', '150e-1',
    '--latency-every', '1,000', '--plant-leak', 'go_heap:1e3']);
  assert.deepEqual([o.queries, o.workers, o.sampleEvery, o.maxErrors, o.latencyEvery, o.plant.bytes], [2_500_000, 2, 1000, 15, 1000, 1000]);
  for (const bad of ['1_', '1.5', '0x10', ' 1']) assert.throws(() => parseOptions(['--queries', bad]), UsageError, bad);
});
