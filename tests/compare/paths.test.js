// paths.test.js -- stress/compare/paths.js is the one place a path is
// defined: every child command line, --paths, the --node/--bun options, the
// help and the Paths table of docs/compare.md come from its records.  No
// build needed (nothing is run but compare's own option checks).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parseOptions, usage, UsageError } from '../../stress/compare/options.js';
import {
  DEFAULT_BASELINE, PATHS, PATH_NAMES, RUNTIMES, bareArgv, command, pathsOf, shownCommand, variants,
} from '../../stress/compare/paths.js';
import { bareRss } from '../../stress/compare/runner.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DRIVER_ARGS = ['--queries', '1000', '--workload', 'reference', '--json', '/tmp/r.json', '--progress', 'off'];

test('every record is complete: a unique name, a known runtime, a program, an about line', () => {
  assert.equal(new Set(PATH_NAMES).size, PATHS.length);
  assert.equal(DEFAULT_BASELINE, PATHS[0].name);
  for (const p of PATHS) {
    assert.match(p.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, p.name); // --paths and column names
    assert.ok(Object.hasOwn(RUNTIMES, p.runtime), `${p.name}: runtime ${p.runtime}`);
    assert.ok(typeof p.about === 'string' && p.about.length > 0, p.name);
    assert.ok(p.note === null || typeof p.note === 'string', p.name);
    // A native driver is a program of the build; any other is run by its runtime's binary.
    if (p.runtime === 'native') assert.match(p.argv[0], /^\{out\}\//, p.name);
    else assert.equal(p.argv[0], '{runtime}', p.name);
    for (const a of p.argv.filter((x) => x.startsWith('{root}/'))) {
      assert.ok(existsSync(join(root, a.slice('{root}/'.length))), `${p.name}: ${a} is not in the repository`);
    }
  }
});

test('command(): each path\'s program and fixed arguments, then the driver flags', () => {
  const o = parseOptions(['--queries', '1000'], root);
  for (const v of variants(o, root)) {
    const p = PATHS.find((x) => x.name === v.path);
    const { argv, env, cwd } = command(v, o, root, '/tmp/r.json');
    assert.deepEqual(argv.slice(-DRIVER_ARGS.length), DRIVER_ARGS, v.name);
    assert.equal(argv.length, p.argv.length + DRIVER_ARGS.length, v.name);
    const program = p.runtime === 'native' ? join(o.out, p.argv[0].slice('{out}/'.length)) : RUNTIMES[p.runtime].binary(root);
    assert.equal(argv[0], program, v.name);
    assert.equal(cwd, root);
    assert.equal(env.DALKIT_SHIM, join(o.out, 'libdalshim.so'));
    assert.equal(env.DALKIT_ADDON, join(o.out, 'dalkit.node'));
  }
  // The command lines as they were before the records (one hard-coded object).
  const argvOf = (name) => command(variants({ ...o, paths: [name] }, root)[0], o, root, '/tmp/r.json').argv.slice(0, -DRIVER_ARGS.length);
  assert.deepEqual(argvOf('native-libffi'), [join(o.out, 'dalstress'), '--via', 'libffi']);
  assert.deepEqual(argvOf('node-koffi'), [process.execPath, '--expose-gc', join(root, 'stress/node/main.js'), '--via', 'koffi', '--workers', '1']);
  assert.deepEqual(argvOf('bun-ffi'), [join(root, 'node_modules/.bin/bun'), join(root, 'stress.ts')]);
  assert.deepEqual(argvOf('deno-ffi'), [join(root, 'node_modules/.bin/deno'), 'run', '--v8-flags=--expose-gc', '--allow-ffi', '--allow-read', '--allow-write',
    '--allow-env', '--allow-sys', join(root, 'stress.ts')]);
});

test('bare runtimes: each JS path\'s binary and flags running bare-runtime.js, none for a native path', () => {
  const o = parseOptions(['--queries', '1000'], root);
  const bareOf = (name) => bareArgv(variants({ ...o, paths: [name] }, root)[0], o, root);
  const bare = join(root, 'stress/compare/bare-runtime.js');
  assert.equal(bareOf('native-direct'), null);
  assert.deepEqual(bareOf('node-addon'), [process.execPath, '--expose-gc', bare]);
  assert.deepEqual(bareOf('node-koffi'), [process.execPath, '--expose-gc', bare]);
  assert.deepEqual(bareOf('bun-ffi'), [join(root, 'node_modules/.bin/bun'), bare]);
  assert.deepEqual(bareOf('deno-ffi'), [join(root, 'node_modules/.bin/deno'), 'run', '--v8-flags=--expose-gc', '--allow-ffi', '--allow-read', '--allow-write',
    '--allow-env', '--allow-sys', bare]);
  // Run for this node: a resident set a bare node plausibly has.
  const rss = bareRss(variants({ ...o, paths: ['node-addon'] }, root)[0], o, root, process.env);
  assert.ok(rss > 10 * 2 ** 20 && rss < 500 * 2 ** 20, `bare node: ${rss} bytes`);
});

test('runtime binaries: --node and --bun make variants of exactly their runtime\'s paths', () => {
  const o = parseOptions(['--node', 'a=/opt/a/node', '--node', 'b=/opt/b/node', '--bun', '/opt/bun'], root);
  const vs = variants(o, root);
  for (const p of PATHS) {
    const mine = vs.filter((v) => v.path === p.name);
    const given = RUNTIMES[p.runtime].option ? o.binaries[p.runtime] : [];
    assert.equal(mine.length, Math.max(given.length, 1), p.name);
    mine.forEach((v, i) => {
      const { argv } = command(v, o, root, '/tmp/r.json');
      if (given.length) {
        assert.equal(v.name, `${p.name}@${given[i].label}`);
        assert.equal(argv[0], given[i].path, v.name);
      } else {
        assert.equal(v.name, p.name);
      }
    });
  }
  assert.deepEqual(pathsOf('node'), PATHS.filter((p) => p.runtime === 'node').map((p) => p.name));
});

test('--paths: every record by name, in table order; an unknown name lists them all', () => {
  assert.deepEqual(parseOptions([], root).paths, PATH_NAMES);
  assert.deepEqual(parseOptions(['--paths', [...PATH_NAMES].reverse().join(',')], root).paths, PATH_NAMES);
  for (const name of PATH_NAMES) assert.deepEqual(parseOptions(['--paths', name], root).paths, [name]);
  assert.throws(() => parseOptions(['--paths', 'nosuch'], root),
    (e) => e instanceof UsageError && e.message.includes(`unknown path 'nosuch' (expected ${PATH_NAMES.join(', ')})`));
});

test('--help names every path with its about line, and each binary option its paths', () => {
  const help = usage();
  const lit = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const p of PATHS) assert.match(help, new RegExp(`^  ${lit(p.name)} +${lit(p.about)}$`, 'm'), p.name);
  for (const [runtime, r] of Object.entries(RUNTIMES).filter(([, x]) => x.option)) {
    assert.match(help, new RegExp(`^  ${lit(r.option)} \\[LABEL=\\]PATH +a ${runtime} binary for ${lit(pathsOf(runtime).join(', '))} `, 'm'), r.option);
  }
  assert.ok(help.includes(`(default ${DEFAULT_BASELINE}, or its first variant)`));
});

test('a binary option for a runtime none of the selected paths uses is refused', () => {
  const nonNode = PATHS.find((p) => p.runtime !== 'node').name;
  const r = spawnSync(process.execPath, [join(root, 'stress/compare/main.js'), '--out', join(root, 'build/out'),
    '--paths', nonNode, '--node', 'x=/opt/x/node'], { encoding: 'utf8' });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /option --node: no path that uses it is run/);
});

test('docs/compare.md\'s Paths table is the records: same names, order and commands', () => {
  const doc = readFileSync(join(root, 'docs/compare.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Paths\n'), doc.indexOf('\n## ', doc.indexOf('\n## Paths\n') + 1));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| `([^`]+)`/gm)].map((m) => ({ name: m[1], command: m[2] }));
  assert.deepEqual(rows.map((r) => r.name), PATH_NAMES);
  rows.forEach((r, i) => assert.equal(r.command, shownCommand(PATHS[i]), r.name));
});
