// fixture-options.js -- the --target-option values of the leak fixtures'
// targets (napi-leak.mjs, goleak.mjs; docs/targets.md "Leak fixtures"),
// checked once in setup: an unknown key or a bad value is an Error there,
// which the driver reports with exit 2 before anything is measured.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { isAbsolute, resolve } from 'node:path';

/** Where the build puts the fixtures (tests/targets/CMakeLists.txt), from the repository root. */
const FIXTURE_DIR = fileURLToPath(new URL('../../build/tests/targets/', import.meta.url));

const MODES = ['clean', 'leak', 'step'];
const MIB = 1024 * 1024;

function integer(key, text, lo, hi) {
  if (!/^[0-9]+$/.test(text)) throw new Error(`--target-option ${key}=${text}: not a whole number`);
  const v = Number(text);
  if (v < lo || v > hi) throw new Error(`--target-option ${key}=${text}: must be in [${lo}, ${hi}]`);
  return v;
}

function oneOf(key, text, values) {
  if (!values.includes(text)) throw new Error(`--target-option ${key}=${text}: one of ${values.join(', ')}`);
  return text;
}

/**
 * The fixture's settings from ctx.options:
 *   mode=clean|leak|step   (default clean) the kind's work giving everything
 *                          back, leaking, or clean plus a one-time step
 *   bytes=N                (default 16) bytes per iteration of the kind
 *   step_bytes=N           (default 100 MiB) the step's size
 *   step_at=F              (default 0.3) the step's iteration, as a share of
 *                          this thread's iterations (0.3: past the default
 *                          20 % warm-up, so the verdict must see it and still
 *                          call the flat memory after it no leak)
 *   library=FILE           (default build/tests/targets/<libraryName>)
 * plus `extra`: {key: [values]} of the target's own choices (first = default).
 */
export function fixtureOptions(ctx, libraryName, extra = {}) {
  const o = ctx.options;
  const known = ['mode', 'bytes', 'step_bytes', 'step_at', 'library', ...Object.keys(extra)];
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) throw new Error(`--target-option ${k}: unknown (known: ${known.join(', ')})`);
  }
  const stepAt = o.step_at === undefined ? 0.3 : Number(o.step_at);
  if (!(stepAt >= 0 && stepAt < 1)) throw new Error(`--target-option step_at=${o.step_at}: a share in [0, 1)`);
  const library = o.library === undefined ? resolve(FIXTURE_DIR, libraryName)
    : isAbsolute(o.library) ? o.library : resolve(process.cwd(), o.library);
  const settings = {
    mode: oneOf('mode', o.mode ?? 'clean', MODES),
    bytes: integer('bytes', o.bytes ?? '16', 1, MIB),
    stepBytes: integer('step_bytes', o.step_bytes ?? String(100 * MIB), 1, 4096 * MIB),
    stepIteration: Math.floor(stepAt * ctx.iterations),
    library,
  };
  for (const [k, values] of Object.entries(extra)) settings[k] = oneOf(k, o[k] ?? values[0], values);
  return settings;
}
