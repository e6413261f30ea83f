// run-driver.js -- runs the kit's stress driver on one runtime with a
// --target, for the fixture tests and the confirmation script: Node
// (stress/node/main.js), Bun (`bun stress.ts`) and Deno (`deno run ...
// stress.ts`, as npm run stress:deno), each with --json into a temporary
// file.  Resolves {code, out, err, report, seconds}; report is null when
// none was written.  bun and deno come from node_modules/.bin.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(root, 'node_modules', '.bin');

// Deno as `npm run stress:deno` starts it (its permissions: --allow-run lets
// the driver start itself again under the allocation tracer).
const denoScript = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['stress:deno'].split(/\s+/);

export const DRIVERS = {
  node: [process.execPath, '--expose-gc', join(root, 'stress', 'node', 'main.js')],
  bun: [join(BIN, 'bun'), join(root, 'stress.ts')],
  deno: denoScript.map((w, k) => (k === 0 ? join(BIN, w) : w === 'stress.ts' ? join(root, w) : w)),
};

/** The driver of `runtime` with args (plus --json and --progress off). */
export function runDriver(runtime, args, { env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'dalkit-fixture-'));
  const json = join(dir, 'report.json');
  const [program, ...fixed] = DRIVERS[runtime];
  const started = performance.now();
  return new Promise((resolve) => {
    const p = spawn(program, [...fixed, '--json', json, '--progress', 'off', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: root, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', (e) => { err += `spawn ${program}: ${e.message}\n`; });
    p.on('close', (code) => {
      let report = null;
      try { report = JSON.parse(readFileSync(json, 'utf8')); } catch { /* none written */ }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, out, err, report, seconds: (performance.now() - started) / 1000 });
    });
  });
}
