#!/usr/bin/env node
// fixtures-confirm.mjs -- the leak fixtures at the issue's scale: every case
// of fixture-cases.js (each leak kind, its clean twin, the step) on every
// runtime of its fixture, N times each (default 10), at 16 B per iteration
// over 1,000,000 iterations, with the default 100 samples; a table of the
// verdicts (exit codes), how many runs were right (caseProblems: exit code,
// the layers and DSOs named) and the leaking layers seen.  A confirmation,
// not a ctest: it takes hours (docs/targets.md "Leak fixtures").
//
//   node tests/targets/fixtures-confirm.mjs                       # everything, 10 runs
//   node tests/targets/fixtures-confirm.mjs --runs 3 --runtimes node,bun --cases 'leak$'
//   node tests/targets/fixtures-confirm.mjs --json confirm.json
//
// The fixtures come from build/tests/targets/ (or DALKIT_LEAK_FIXTURE,
// DALKIT_GOLEAK); Bun and Deno need DALKIT_SHIM or build/out/libdalshim.so.
// Exit code: 0 when every run was right, 1 otherwise, 2 on a bad command line.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';

import { CASES, RUNTIMES, VIA, caseArgs, caseName, caseProblems } from './fixture-cases.js';
import { runDriver } from './run-driver.js';

function options(argv) {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '10' },
      iterations: { type: 'string', default: '1000000' },
      bytes: { type: 'string', default: '16' },
      runtimes: { type: 'string', default: 'node,bun,deno' },
      cases: { type: 'string', default: '' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const whole = (k, lo) => {
    const n = Number(v[k].replace(/_/g, ''));
    if (!Number.isInteger(n) || n < lo) throw new Error(`--${k} ${v[k]}: a whole number >= ${lo}`);
    return n;
  };
  const runtimes = v.runtimes.split(',').filter(Boolean);
  for (const r of runtimes) if (!['node', 'bun', 'deno'].includes(r)) throw new Error(`--runtimes: unknown runtime ${r}`);
  return {
    help: !!v.help, runs: whole('runs', 1), iterations: whole('iterations', 1000), bytes: whole('bytes', 1),
    runtimes, cases: new RegExp(v.cases), json: v.json ?? null,
  };
}

const LIBRARY = { napi: process.env.DALKIT_LEAK_FIXTURE ?? null, go: process.env.DALKIT_GOLEAK ?? null };

async function main() {
  let o;
  try {
    o = options(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`fixtures-confirm: ${e.message}\n`);
    return 2;
  }
  if (o.help) {
    process.stdout.write('usage: node tests/targets/fixtures-confirm.mjs [--runs N] [--iterations N] [--bytes N] ' +
      '[--runtimes node,bun,deno] [--cases REGEX] [--json FILE]\n');
    return 0;
  }
  const rows = [];
  for (const c of CASES) {
    const label = `${c.fixture} ${caseName(c)}`;
    if (!o.cases.test(label)) continue;
    for (const runtime of RUNTIMES[c.fixture].filter((r) => o.runtimes.includes(r))) {
      const row = { fixture: c.fixture, case: caseName(c), runtime, via: VIA[c.fixture][runtime], expected: c.code,
        runs: 0, right: 0, exits: {}, leaking: {}, problems: [], seconds: 0 };
      for (let k = 0; k < o.runs; k++) {
        const r = await runDriver(runtime, caseArgs(c, runtime, { bytes: o.bytes, iterations: o.iterations }, { library: LIBRARY[c.fixture] }));
        const problems = caseProblems(c, runtime, r);
        row.runs++;
        row.seconds += r.seconds;
        row.exits[r.code] = (row.exits[r.code] ?? 0) + 1;
        for (const l of r.report?.verdict.leaking_layers ?? []) row.leaking[l] = (row.leaking[l] ?? 0) + 1;
        if (problems.length === 0) row.right++;
        else row.problems.push(`run ${k + 1}: ${problems.join('; ')}`);
        process.stderr.write(`${label} on ${runtime}, run ${k + 1}/${o.runs}: exit ${r.code}` +
          ` (${(r.report?.verdict.leaking_layers ?? []).join(' ') || 'no leak'}) in ${r.seconds.toFixed(1)} s${problems.length ? `: ${problems.join('; ')}` : ''}\n`);
      }
      rows.push(row);
    }
  }
  const header = ['fixture', 'case', 'runtime (via)', 'expect', 'right', 'exit 0/1/2', 'leaking layers (runs)', 's/run'];
  const body = rows.map((r) => [r.fixture, r.case, `${r.runtime} (${r.via})`, `exit ${r.expected}`,
    `${r.right}/${r.runs}`,
    `${r.exits[0] ?? 0}/${r.exits[1] ?? 0}/${r.exits[2] ?? 0}`,
    Object.entries(r.leaking).map(([l, n]) => `${l} ${n}`).join(', ') || '-', (r.seconds / r.runs).toFixed(1)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd();
  process.stdout.write(`leak fixtures: ${o.runs} runs per case, ${o.iterations.toLocaleString('en-US')} iterations, ${o.bytes} B per iteration\n`);
  process.stdout.write(`${[line(header), ...body.map(line)].join('\n')}\n`);
  for (const r of rows.filter((x) => x.problems.length)) {
    process.stdout.write(`${r.fixture} ${r.case} on ${r.runtime}:\n${r.problems.map((p) => `  ${p}`).join('\n')}\n`);
  }
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ options: { ...o, cases: o.cases.source }, rows }, null, 1)}\n`);
  return rows.every((r) => r.right === r.runs) ? 0 : 1;
}

process.exitCode = await main();
