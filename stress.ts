// stress.ts -- a workload (--workload reference|rows|write|mixed, default
// reference; stress/workloads/) through bun:ffi or Deno.dlopen (whichever
// runtime runs this file), with the report, exit codes and progress of
// `npm run stress` (stress/js/driver.js; flags: --help).
//
//   bun stress.ts --queries 2000000          (or: npx bun stress.ts, node_modules/.bin/bun stress.ts)
//   deno run --v8-flags=--expose-gc --allow-ffi --allow-read --allow-write --allow-env --allow-sys --allow-run stress.ts --queries 2000000
//                                            (--allow-run: --attribute starts it again under the tracer)
//                                            (or: npm run stress:deno -- --queries 2000000)
//
// libdalshim.so comes from build/out/ (the README's build) or $DALKIT_SHIM.
import process from 'node:process';

import { main } from './stress/js/driver.js';
import { createBinding } from './stress/js/ffi-binding.js';

const program = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? 'bun-stress' : 'deno-stress';
const code = await main(createBinding, process.argv.slice(2), { program, vias: [program === 'bun-stress' ? 'bun-ffi' : 'deno-ffi'] });
process.exit(code);
