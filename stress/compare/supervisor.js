// supervisor.js -- runs one stress driver as a supervised child process and
// says exactly how it ended.
//
// Lessons from published runtime ports (../docs/compare.md, "Supervision"):
// runtimes can exit without a word, crash on a signal, hang, or lose answers.
// So every child runs in its own process group with a timeout; its stderr
// tail is kept; and the outcome is classified from the exit status AND the
// report it wrote -- a run is never dropped for lack of a report.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { constants as osConstants } from 'node:os';

const TAIL_LINES = 30;
const TAIL_BYTES = 16 * 1024;
// After SIGTERM a hung driver gets this long to write its partial report
// (the drivers stop cleanly on SIGTERM) before the group is SIGKILLed.
const KILL_GRACE_MS = 5000;

/** Keeps the last bytes of a stream, cut to whole lines when shown. */
class Tail {
  constructor() { this.buf = Buffer.alloc(0); this.total = 0; }
  push(chunk) {
    this.total += chunk.length;
    this.buf = Buffer.concat([this.buf, chunk]);
    if (this.buf.length > 2 * TAIL_BYTES) this.buf = this.buf.subarray(this.buf.length - TAIL_BYTES);
  }
  text() {
    let s = this.buf.subarray(Math.max(0, this.buf.length - TAIL_BYTES)).toString('utf8');
    const lines = s.split('\n');
    if (lines.at(-1) === '') lines.pop();
    s = lines.slice(-TAIL_LINES).join('\n');
    return s;
  }
}

function signalName(sig) {
  return typeof sig === 'string' ? sig : Object.keys(osConstants.signals).find((k) => osConstants.signals[k] === sig) ?? String(sig);
}

function killGroup(child, sig) {
  try {
    process.kill(-child.pid, sig); // the whole group: runtimes may have helper processes
  } catch {
    try { child.kill(sig); } catch { /* already gone */ }
  }
}

/**
 * The DAL library the child dlopen()ed, from the dynamic loader's own trace
 * (LD_DEBUG=files, written to LD_DEBUG_OUTPUT.<pid> files): the file
 * "dynamically loaded by" libdalshim.so, the addon or dalstress.  This is
 * what proves a --dal substitution really happened, whatever the driver
 * prints.  null when no such line exists (no trace, or the DAL never loaded).
 */
export function loadedDal(traceDir) {
  if (!traceDir || !existsSync(traceDir)) return null;
  const re = /file=(\S+) \[\d+\];\s+dynamically loaded by (\S+)/;
  for (const f of readdirSync(traceDir).sort()) {
    for (const line of readFileSync(join(traceDir, f), 'utf8').split('\n')) {
      const m = re.exec(line);
      if (m && /(^|\/)(libdalshim\.so|dalkit\.node|dalstress)$/.test(m[2])) {
        return existsSync(m[1]) ? realpathSync(m[1]) : m[1];
      }
    }
  }
  return null;
}

/**
 * Spawn argv and wait.  Resolves (never rejects) to
 *   {exitCode, signal, timedOut, spawnError, durationS, stderrTail, stdoutTail}.
 * spec: {argv, env, cwd, timeoutMs, traceDir}; onSpawn(child) lets the
 * caller forward an interrupt.
 */
export function runChild(spec, onSpawn = () => {}) {
  return new Promise((resolvePromise) => {
    const env = { ...spec.env };
    if (spec.traceDir) {
      env.LD_DEBUG = 'files';
      env.LD_DEBUG_OUTPUT = join(spec.traceDir, 'ld');
    }
    const t0 = process.hrtime.bigint();
    const stderr = new Tail();
    const stdout = new Tail();
    let timedOut = false;
    let settled = false;
    let child;
    const finish = (r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killer);
      resolvePromise({
        durationS: Number(process.hrtime.bigint() - t0) / 1e9,
        timedOut,
        stderrTail: stderr.text(),
        stdoutTail: stdout.text(),
        ...r,
      });
    };
    let killer = null;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGTERM');
      killer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
    }, spec.timeoutMs);
    try {
      // detached: the child leads its own process group, so a timeout kills
      // everything it started, and a terminal's Ctrl-C does not reach it
      // twice (compare forwards it once).
      child = spawn(spec.argv[0], spec.argv.slice(1), { cwd: spec.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      finish({ exitCode: null, signal: null, spawnError: e.message });
      return;
    }
    child.stdout.on('data', (c) => stdout.push(c));
    child.stderr.on('data', (c) => stderr.push(c));
    child.on('error', (e) => finish({ exitCode: null, signal: null, spawnError: e.message }));
    // 'close', not 'exit': every byte of stderr has been read by then.
    child.on('close', (code, sig) => finish({ exitCode: code, signal: sig ? signalName(sig) : null, spawnError: null }));
    onSpawn(child);
  });
}

/**
 * Compare's own Ctrl-C, passed to the child's process group: SIGINT first
 * (the drivers then stop cleanly and report), SIGKILL on the second one.
 */
export function interruptChild(child, sig = 'SIGINT') {
  if (child && child.exitCode === null && child.signalCode === null) killGroup(child, sig);
}

/**
 * Read and judge the report a child wrote.  Returns {report, problem}:
 * report is the parsed monitor report or null; problem is null for a
 * well-formed report, else {kind, message}.
 */
export function readReport(file) {
  if (!existsSync(file)) return { report: null, problem: { kind: 'no-report', message: 'before writing its report' } };
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { report: null, problem: { kind: 'no-report', message: 'leaving its report file empty' } };
  let report;
  try {
    report = JSON.parse(text);
  } catch (e) {
    return { report: null, problem: { kind: 'bad-report', message: `report is not JSON: ${e.message}` } };
  }
  // Version 3 added run.unit and leaves out the DAL's layers of a run without
  // the DAL; what compare reads is the same in both.
  if (!report || report.schema !== 'dalkit-stress-report' || ![2, 3].includes(report.version) ||
      !report.verdict || !report.timing || !report.counts || !Array.isArray(report.layers)) {
    return { report: null, problem: { kind: 'bad-report', message: 'report is not a dalkit-stress-report version 2 or 3 (docs/report-schema.md)' } };
  }
  return { report, problem: null };
}

/**
 * How a run ended, from the process status and its report:
 * {status: 'ok' | 'leak' | 'failed', kind, message}.  Kinds of failure:
 * spawn, timeout, signal, no-report, bad-report, wrong-answers, incomplete,
 * error (the driver's own verdict), exit-mismatch, dal-mismatch.  unit:
 * what the planned count counts ('query', or 'iteration' for a target).
 * Leak verdicts are results, not failures: the run measured what it should.
 */
export function classify(proc, { report, problem }, { plannedQueries, unit = 'query', expectedDal, loadedDal, timeoutS }) {
  const fail = (kind, message) => ({ status: 'failed', kind, message });
  if (proc.spawnError) return fail('spawn', `could not be started: ${proc.spawnError}`);
  if (proc.timedOut) {
    const how = proc.signal ? `killed (${proc.signal})` : `stopped by SIGTERM, exit ${proc.exitCode}`;
    return fail('timeout', `hung: no exit within the ${timeoutS} s timeout; ${how}`);
  }
  if (proc.signal) return fail('signal', `died of signal ${proc.signal}${report ? '' : ' before writing its report'}`);
  if (problem) {
    const exit = `exit code ${proc.exitCode}`;
    return fail(problem.kind, problem.kind === 'no-report' ? `exited with code ${proc.exitCode} ${problem.message}` : `${problem.message} (${exit})`);
  }
  const v = report.verdict;
  if (report.counts.errors > 0) {
    return fail('wrong-answers', `the driver reported ${report.counts.errors} failed or wrong answers (exit code ${proc.exitCode})` +
      (v.errors?.length ? `: ${v.errors.join('; ')}` : ''));
  }
  if (typeof report.counts.queries === 'number' && report.counts.queries < plannedQueries) {
    const what = unit === 'iteration' ? `ran ${report.counts.queries} of ${plannedQueries} iterations` : `answered ${report.counts.queries} of ${plannedQueries} queries`;
    return fail('incomplete', `${what} (exit code ${proc.exitCode})`);
  }
  if (v.exit_code !== proc.exitCode) {
    return fail('exit-mismatch', `exit code ${proc.exitCode}, but its report says ${v.exit_code} (${v.overall})`);
  }
  if (v.overall === 'error' || proc.exitCode === 2) {
    return fail('error', `verdict error (exit code ${proc.exitCode})${v.errors?.length ? `: ${v.errors.join('; ')}` : ''}`);
  }
  if (expectedDal && loadedDal !== expectedDal) {
    return fail('dal-mismatch', loadedDal ? `loaded the DAL ${loadedDal}, not ${expectedDal}` : `no trace of loading the DAL ${expectedDal}`);
  }
  if (proc.exitCode === 1 && v.overall === 'leak') {
    return { status: 'leak', kind: 'leak', message: `leak in ${v.leaking_layers.join(', ')}` };
  }
  if (proc.exitCode === 0 && v.overall === 'no leak') return { status: 'ok', kind: null, message: null };
  return fail('exit-mismatch', `exit code ${proc.exitCode} with verdict "${v.overall}"`);
}
