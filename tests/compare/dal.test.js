// dal.test.js -- `--dal A --dal B`: each variant's children really load the
// library given (proved by the dynamic loader's trace, not by what the driver
// says), and a run that loads another DAL fails as such.
//
// Needs a build: DALKIT_OUT_DIR (dalstress, libdalshim.so, libdal.so) and
// FAKE_DAL (tests/shim's libfakedal_ok.so: a C stand-in that answers the
// reference query correctly), both set by tests/compare/CMakeLists.txt.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { classify, loadedDal } from '../../stress/compare/supervisor.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(join(tmpdir(), 'compare-dal-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function need(name) {
  const v = process.env[name];
  assert.ok(v, `${name} is not set (run through ctest: tests/compare/CMakeLists.txt sets it)`);
  return v;
}

test('--dal real --dal fake: two columns, each run loaded its own library', () => {
  const out = need('DALKIT_OUT_DIR');
  const fakeDal = need('FAKE_DAL');
  const json = join(scratch, 'dal.json');
  const r = spawnSync(process.execPath, [join(root, 'stress/compare/main.js'), '--out', out, '--paths', 'native-direct',
    '--queries', '20000', '--runs', '2', '--dal', `real=${join(out, 'libdal.so')}`, '--dal', `fake=${fakeDal}`, '--json', json],
  { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.deepEqual(report.paths.map((p) => p.name), ['native-direct@real', 'native-direct@fake']);
  assert.equal(report.baseline, 'native-direct@real');
  const expected = { 'native-direct@real': realpathSync(join(out, 'libdal.so')), 'native-direct@fake': realpathSync(fakeDal) };
  for (const p of report.paths) {
    assert.equal(p.attempts.length, 2);
    for (const a of p.attempts) assert.equal(a.dal_loaded, expected[p.name], p.name);
  }
  // And the drivers saw it: the fake DAL's stats are constants (1000 + index),
  // the Go DAL's are not, and only the Go DAL runs a Go GC.
  const gcCycles = (p) => p.runs[0].summary.go_gc_cycles;
  assert.ok(gcCycles(report.paths[0]).end > 0, 'the Go DAL collects');
  assert.equal(gcCycles(report.paths[1]).start, gcCycles(report.paths[1]).end, 'the fake DAL has constant stats');
  assert.match(r.stdout, /native-direct@real +native-direct@fake/);
  assert.equal(report.comparisons.length, 1);
  assert.equal(report.comparisons[0].path, 'native-direct@fake');
});

test('the loader trace names the library the shim dlopen()ed', () => {
  const dir = join(scratch, 'trace');
  mkdirSync(dir, { recursive: true });
  // The lines glibc's LD_DEBUG=files writes (abridged); only the file the
  // shim, the addon or dalstress loaded dynamically is the DAL.
  writeFileSync(join(dir, 'ld.123'), [
    '     123:\tfile=libdalshim.so [0];  needed by /x/out/dalstress [0]',
    '     123:\tfile=libm.so.6 [0];  needed by /x/out/libdalshim.so [0]',
    '     123:\tfile=/elsewhere/koffi.node [0];  dynamically loaded by /usr/bin/node [0]',
    '     123:\tfile=/x/other/libdal.so [0];  dynamically loaded by /x/out/libdalshim.so [0]',
    '     123:\tfile=libsqlite3.so.0 [0];  needed by /x/other/libdal.so [0]',
  ].join('\n'));
  assert.equal(loadedDal(dir), '/x/other/libdal.so');
  writeFileSync(join(dir, 'ld.123'), '     123:\tfile=/b/libdal.so [0];  dynamically loaded by /a/build/out/dalkit.node [0]\n');
  assert.equal(loadedDal(dir), '/b/libdal.so');
  writeFileSync(join(dir, 'ld.123'), '     123:\tfile=libm.so.6 [0];  needed by /x [0]\n');
  assert.equal(loadedDal(dir), null);
});

test('a run that loaded another DAL fails with dal-mismatch', () => {
  const report = {
    counts: { errors: 0, queries: 10 },
    verdict: { exit_code: 0, overall: 'no leak', errors: [], leaking_layers: [] },
  };
  const proc = { exitCode: 0, signal: null, timedOut: false, spawnError: null };
  const base = { plannedQueries: 10, expectedDal: '/want/libdal.so', timeoutS: 10 };
  assert.deepEqual(classify(proc, { report, problem: null }, { ...base, loadedDal: '/want/libdal.so' }).status, 'ok');
  const wrong = classify(proc, { report, problem: null }, { ...base, loadedDal: '/other/libdal.so' });
  assert.equal(wrong.kind, 'dal-mismatch');
  assert.match(wrong.message, /loaded the DAL \/other\/libdal\.so, not \/want\/libdal\.so/);
  assert.equal(classify(proc, { report, problem: null }, { ...base, loadedDal: null }).kind, 'dal-mismatch');
});
