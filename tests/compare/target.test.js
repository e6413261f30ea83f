// target.test.js -- `npm run stress:compare -- --target FILE` (docs/compare.md,
// "A target on several runtimes"): the paths are the JS runtimes (node, bun,
// deno, stress/compare/paths.js TARGET_PATHS), the native and DAL-binding
// paths and the workload flags are refused with a clear error, each child
// gets --target, --iterations and the --target-option values, and a real run
// of a small target on the three runtimes is measured without the
// loaded-DAL check (a target loads no DAL: with the check every run would be
// a dal-mismatch failure).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parseOptions, UsageError } from '../../stress/compare/options.js';
import { PATHS, TARGET_PATHS, TARGET_PATH_NAMES, command, pathArgv, variants } from '../../stress/compare/paths.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(join(tmpdir(), 'compare-target-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// A target that fails unless its --target-option arrived.
const TARGET = join(scratch, 'echo.mjs');
writeFileSync(TARGET, `export default {
  name: 'compare target test',
  setup(ctx) { if (ctx.options.word !== 'hello') throw new Error('--target-option word=hello did not arrive'); return { n: 0 }; },
  iteration(s) { s.n++; },
};
`);

const refused = (argv, pattern) => assert.throws(() => parseOptions(argv, root),
  (e) => e instanceof UsageError && pattern.test(e.message), argv.join(' '));

test('options: the runtimes are the paths; native paths, DAL paths and workload flags are refused', () => {
  assert.deepEqual(parseOptions(['--target', TARGET], root).paths, TARGET_PATH_NAMES);
  assert.deepEqual(TARGET_PATH_NAMES, ['node', 'bun', 'deno']);
  assert.deepEqual(parseOptions(['--target', TARGET, '--paths', 'deno,node'], root).paths, ['node', 'deno']);
  for (const p of PATHS.filter((x) => x.runtime === 'native')) {
    refused(['--target', TARGET, '--paths', `node,${p.name}`], new RegExp(`'${p.name}' .*a native path runs dalstress, which cannot run a JS target; with --target the paths are the runtimes: node, bun, deno`));
  }
  refused(['--target', TARGET, '--paths', 'node-koffi'], /'node-koffi' is a path of the DAL's workloads .*the paths are the runtimes: node, bun, deno/);
  refused(['--paths', 'bun'], /'bun' is a path of --target FILE; the workload paths are native-direct/);
  refused(['--target', TARGET, '--queries', '10'], /--queries is for the DAL's workloads, not a --target \(count iterations with --iterations\)/);
  refused(['--target', TARGET, '--workload', 'rows'], /--workload is for the DAL's workloads/);
  refused(['--target', TARGET, '--dal', 'x.so'], /--dal is for the DAL's workloads/);
  for (const k of ['--iterations', '--target-option', '--workers']) refused([k, '1'], new RegExp(`${k} needs --target FILE`));
  refused(['--target', join(scratch, 'nosuch.mjs')], /--target: no such file .*nosuch\.mjs/);
});

test('command(): each runtime\'s driver with --target, --iterations, --target-option and --workers', () => {
  const o = parseOptions(['--target', TARGET, '--iterations', '5000', '--target-option', 'a=1', '--target-option', 'b=2',
    '--workers', '2'], root);
  const tail = ['--target', TARGET, '--iterations', '5000', '--target-option', 'a=1', '--target-option', 'b=2', '--workers', '2',
    '--json', '/tmp/r.json', '--progress', 'off'];
  for (const v of variants(o, root)) {
    const p = TARGET_PATHS.find((x) => x.name === v.path);
    assert.deepEqual(command(v, o, root, '/tmp/r.json').argv, [...pathArgv(p, v, o, root), ...tail], v.name);
  }
  // Deno as npm run stress:deno starts it, --allow-run included.
  const deno = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['stress:deno'].split(' ');
  assert.deepEqual(TARGET_PATHS.find((p) => p.name === 'deno').argv.slice(1).map((a) => a.replace('{root}/', '')), deno.slice(1));
});

test('a run: one target on node, bun and deno, counted in iterations, no loaded-DAL check', () => {
  const json = join(scratch, 'compare.json');
  const r = spawnSync(process.execPath, [join(root, 'stress/compare/main.js'), '--out', join(root, 'build/out'),
    '--target', TARGET, '--target-option', 'word=hello', '--paths', 'node,bun,deno', '--runs', '1', '--iterations', '3000',
    '--json', json], { encoding: 'utf8', timeout: 240_000 });
  const why = `${r.stdout}\n${r.stderr}`;
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal(report.options.unit, 'iteration');
  assert.equal(report.options.target, TARGET);
  assert.deepEqual(report.paths.map((p) => p.name), ['node', 'bun', 'deno']);
  for (const p of report.paths) {
    const [a] = p.attempts;
    // Measured (no leak, or a leak verdict: both are results), never failed.
    assert.ok(a.status === 'ok' || a.status === 'leak', `${p.name}: ${a.kind}: ${a.message}\n${why}`);
    assert.equal(a.dal_loaded, null, p.name);
    assert.equal(p.runs[0].run.unit, 'iteration', p.name);
    assert.equal(p.runs[0].counts.queries, 3000, p.name);
    assert.match(p.runs[0].run.mode, /target compare target test/, p.name);
  }
  assert.equal(r.status, report.paths.some((p) => p.attempts[0].status === 'leak') ? 1 : 0, why);
  assert.match(r.stdout, /3 paths, 1 runs x 3,000 iterations each, target /);
  assert.match(r.stdout, /\niterations per second +/);
  assert.match(r.stdout, /Against node: iterations per second/);
  assert.doesNotMatch(r.stdout, /quer|data transferred/i);
});
