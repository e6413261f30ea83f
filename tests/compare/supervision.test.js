// supervision.test.js -- stress:compare with stand-in drivers
// (tests/compare/fake-driver.js via the test-only --path-command): a crash,
// a hang, a wrong answer, a missing and an unparseable report are each
// reported as such, with the stderr tail, in the table, the JSON and the exit
// code; a hung child's whole process group is killed; a leak is exit 1; and
// the statistics over the fakes' fixed throughputs are the ones stats.js
// computes (Welch's t-test wired to the right samples).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { welchTTest } from '../../stress/compare/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const main = join(root, 'stress/compare/main.js');
const fake = (behaviour) => `${process.execPath} ${join(here, 'fake-driver.js')} ${behaviour}`;
const scratch = mkdtempSync(join(tmpdir(), 'compare-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function compare(args) {
  const json = join(scratch, `r${Math.random().toString(36).slice(2)}.json`);
  const r = spawnSync(process.execPath, [main, '--queries', '1000', '--json', json, ...args], { encoding: 'utf8', timeout: 120_000 });
  let report = null;
  try {
    report = JSON.parse(readFileSync(json, 'utf8'));
  } catch { /* asserted by the caller */ }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, report };
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('crash, wrong answers, no report and a bad report: each named, with its stderr tail, exit 3', () => {
  const r = compare([
    '--paths', 'native-direct,native-libffi,node-addon,node-koffi,bun-ffi', '--runs', '1',
    '--path-command', `native-direct=${fake('ok 50000')}`,
    '--path-command', `native-libffi=${fake('crash')}`,
    '--path-command', `node-addon=${fake('wrong')}`,
    '--path-command', `node-koffi=${fake('noreport')}`,
    '--path-command', `bun-ffi=${fake('garbage')}`,
  ]);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const kinds = Object.fromEntries(r.report.failures.map((f) => [f.path, f]));
  assert.deepEqual(Object.keys(kinds).sort(), ['bun-ffi', 'native-libffi', 'node-addon', 'node-koffi']);
  assert.equal(kinds['native-libffi'].kind, 'signal');
  assert.equal(kinds['native-libffi'].signal, 'SIGSEGV');
  assert.match(kinds['native-libffi'].stderr_tail, /about to crash/);
  assert.equal(kinds['node-addon'].kind, 'wrong-answers');
  assert.match(kinds['node-addon'].message, /3 failed or wrong answers/);
  assert.match(kinds['node-addon'].stderr_tail, /expected 34/);
  assert.equal(kinds['node-koffi'].kind, 'no-report');
  assert.equal(kinds['node-koffi'].exit_code, 2);
  assert.match(kinds['node-koffi'].stderr_tail, /giving up/);
  assert.equal(kinds['bun-ffi'].kind, 'bad-report');
  // In the text too, never dropped: every failure with its stderr line.
  assert.match(r.stdout, /FAILED RUNS \(4\)/);
  assert.match(r.stdout, /native-libffi run 1: signal: died of signal SIGSEGV before writing its report/);
  assert.match(r.stdout, /\| fake_driver: about to crash/);
  assert.match(r.stdout, /node-addon run 1: wrong-answers/);
  assert.match(r.stdout, /node-koffi run 1: no-report: exited with code 2 before writing its report/);
  assert.match(r.stdout, /COMPARE: 4 run\(s\) failed .*\(exit code 3\)/);
  // The healthy path is still measured; the failed ones are not in the statistics.
  const ok = r.report.paths.find((p) => p.name === 'native-direct');
  assert.equal(ok.summary.runs_measured, 1);
  assert.equal(ok.summary.queries_per_second.mean, 50000);
  const wrong = r.report.paths.find((p) => p.name === 'node-addon');
  assert.equal(wrong.summary.runs_measured, 0);
  assert.equal(wrong.runs.length, 1, 'the wrong-answer report is kept for the HTML report');
  assert.equal(wrong.attempts[0].run_index, 0);
});

test('a hang is killed after --timeout, with its whole process group', () => {
  const pidFile = join(scratch, 'grandchild.pid');
  const t0 = Date.now();
  const r = compare(['--paths', 'deno-ffi', '--runs', '1', '--timeout', '2', '--path-command', `deno-ffi=${fake(`hang ${pidFile}`)}`]);
  const took = (Date.now() - t0) / 1000;
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const [f] = r.report.failures;
  assert.equal(f.kind, 'timeout');
  // SIGTERM is ignored by the fake, so the group is SIGKILLed after the grace period.
  assert.equal(f.signal, 'SIGKILL');
  assert.match(f.message, /hung: no exit within the 2 s timeout; killed \(SIGKILL\)/);
  assert.match(f.stderr_tail, /hanging\n.*SIGTERM ignored/s);
  assert.ok(took < 60, `took ${took} s`);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(pid > 0);
  assert.equal(alive(pid), false, `grandchild ${pid} survived the timeout`);
});

test('Ctrl-C stops the running child (its group) and the schedule: exit 130, JSON written', async () => {
  const pidFile = join(scratch, 'interrupted.pid');
  const json = join(scratch, 'interrupted.json');
  const child = spawn(process.execPath, [main, '--queries', '1000', '--runs', '3', '--json', json, '--paths', 'bun-ffi,deno-ffi',
    '--path-command', `bun-ffi=${fake(`hang ${pidFile}`)}`, '--path-command', `deno-ffi=${fake('ok 1000')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (c) => { stdout += c; });
  const exited = new Promise((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  for (let i = 0; i < 600 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(existsSync(pidFile), 'the hanging stand-in started');
  await new Promise((r) => setTimeout(r, 200)); // its pid file is written before it hangs
  child.kill('SIGINT');
  assert.equal(await exited, 130, stdout);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal(report.interrupted, true);
  assert.equal(report.failures.length, 1);
  assert.equal(report.failures[0].kind, 'interrupted');
  assert.equal(report.paths.find((p) => p.name === 'deno-ffi').attempts.length, 0, 'nothing ran after the interrupt');
  assert.match(stdout, /COMPARE: interrupted \(exit code 130\)/);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  for (let i = 0; i < 40 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false, `grandchild ${pid} survived the interrupt`);
});

test('a leak verdict is a measurement (in the statistics) and exit 1', () => {
  const r = compare(['--paths', 'native-direct,bun-ffi', '--runs', '2',
    '--path-command', `native-direct=${fake('ok 60000')}`, '--path-command', `bun-ffi=${fake('leak 61000')}`]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.deepEqual(r.report.failures, []);
  const bun = r.report.paths.find((p) => p.name === 'bun-ffi');
  assert.equal(bun.summary.runs_measured, 2);
  assert.equal(bun.summary.layers.find((L) => L.layer === 'malloc').verdict, 'leak (2/2 runs)');
  assert.match(r.stdout, /slope malloc .*LEAK 2/);
  assert.match(r.stdout, /COMPARE: a leak was found .*\(exit code 1\)/);
});

test('every run completes: exit 0, interleaved schedule, Welch on the runs measured', () => {
  // Two rounds; the fakes report fixed rates, so the comparison is exact.
  const r = compare(['--paths', 'native-direct,node-addon,bun-ffi', '--runs', '2', '--workload', 'rows',
    '--path-command', `native-direct=${fake('ok 50000')}`,
    '--path-command', `node-addon=${fake('ok 40000')}`,
    '--path-command', `bun-ffi=${fake('ok 50000')}`]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  // --workload reaches every driver.
  for (const a of r.report.paths.flatMap((p) => p.attempts)) {
    assert.equal(a.command[a.command.indexOf('--workload') + 1], 'rows', a.command.join(' '));
  }
  assert.equal(r.report.options.workload, 'rows');
  // Round 1 forward, round 2 reversed.
  const order = r.report.paths.flatMap((p) => p.attempts.map((a) => [a.order, p.name])).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  assert.deepEqual(order, ['native-direct', 'node-addon', 'bun-ffi', 'bun-ffi', 'node-addon', 'native-direct']);
  const [addon, bun] = r.report.comparisons;
  assert.equal(addon.path, 'node-addon');
  assert.ok(Math.abs(addon.improvement_pct + 20) < 1e-9, String(addon.improvement_pct));
  // Zero variance on both sides: p is 0 for different means, 1 for equal ones.
  assert.equal(addon.p, 0);
  assert.equal(addon.stars, '***');
  assert.equal(bun.p, 1);
  assert.equal(bun.stars, '');
  assert.equal(r.report.multiple_comparisons.tests, 2);
  assert.deepEqual(r.report.multiple_comparisons.significant_holm, ['node-addon']);
  assert.match(r.stdout, /Multiple comparisons: 2 tests/);
  // Slope units come from each layer's unit in the reports (bytes: B/q, count: /Mq).
  assert.match(r.stdout, /^slope rss +0\.00 B\/q /m);
  assert.match(r.stdout, /^slope statements +1000\.00\/Mq /m);
  assert.match(r.stdout, /COMPARE: every run completed with no leak \(exit code 0\)/);
  // The JSON's comparison is stats.js's Welch test of the same samples.
  const w = welchTTest([40000, 40000], [50000, 50000]);
  assert.equal(addon.p, w.p);
});

test('bad command lines exit 2 with the usage, before running anything', () => {
  for (const args of [
    ['--paths', 'native-direct,python'],
    ['--runs', '0'],
    ['--queries', 'lots'],
    ['--workload', 'nosuch'],
    ['--baseline', 'bun-ffi', '--paths', 'native-direct'],
    ['--path-command', 'nosuch=true'],
    ['--json', join(scratch, 'no/such/dir/x.json')],
    ['--frobnicate'],
  ]) {
    const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^stress:compare: .+\n\nusage: npm run stress:compare/, args.join(' '));
    assert.doesNotMatch(r.stderr, /compare: \[1\//, 'nothing ran');
  }
  const help = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--path-command NAME=PROGRAM/);
});

test('npm run stress:compare (compare.sh): --help and --out skip the setup and run main.js', () => {
  const sh = join(root, 'stress/compare/compare.sh');
  const help = spawnSync('bash', [sh, '--help'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: npm run stress:compare/);
  assert.doesNotMatch(help.stderr, /setup|building/);
  // --out names a build: nothing is built; here it holds no driver at all, so
  // the one run fails to start, and says so (exit 3).
  const empty = mkdtempSync(join(scratch, 'out-'));
  const r = spawnSync('bash', [sh, '--out', empty, '--paths', 'native-direct', '--runs', '1', '--queries', '1000'],
    { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 3, r.stdout + r.stderr);
  assert.match(r.stdout, /native-direct run 1: spawn: could not be started: spawn .*dalstress ENOENT/);
  assert.doesNotMatch(r.stderr, /setup|building/);
});
