// postgres.js -- --postgres URL|local, for every JS driver (Node addon,
// koffi, Bun, Deno) and stress:compare (docs/dalstress.md, "On
// PostgreSQL"): the DAL on a PostgreSQL database instead of a SQLite data
// directory.
//
// `local` starts a throwaway server for the run.  The driver starts itself
// again, same runtime, flags and arguments, under
//
//   scripts/lib/pg-cluster.sh run --no-replica -- <the driver>
//
// which starts a primary on a free loopback port, runs the driver with
// DALKIT_PG_URL set, and stops the server and removes its directory on
// every exit path; this process exits as that script exits (Ctrl-C: 130).
// dalstress does the same (stress/native/postgres.cpp), and the names of
// the child mark and the run's schema are the same there.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { relaunchArgs } from './attribute.js';

/** The script that runs a command beside a throwaway cluster. */
export const PG_CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/lib/pg-cluster.sh', import.meta.url));
// Set for the driver pg-cluster.sh runs: it takes $DALKIT_PG_URL instead
// of starting a server again ('1'; '2' once it has said where the server is).
const CHILD_MARK = 'DALKIT_PG_LOCAL_CHILD';

/** Whether s is a URL the DAL opens as PostgreSQL (dal.h, POSTGRESQL). */
export const isPostgresUrl = (s) => /^postgres(ql)?:\/\//.test(s);

/** url with its password (if any) replaced by "***", for messages. */
export function redactedUrl(url) {
  // userinfo: up to the last '@' before the path (a password may hold '@').
  return String(url).replace(/^([a-z]+:\/\/[^:/?#@]*:)[^/?#]*@/, '$1***@');
}

/** A command line with every PostgreSQL URL in it redacted (for reports). */
export const redactedArgs = (args) => args.map((a) => (isPostgresUrl(a) ? redactedUrl(a) : a));

/** The value of --postgres checked: 'local', a URL, or a UsageError's message (a string). */
export function checkPostgresOption(value) {
  if (value === 'local' || isPostgresUrl(value)) return null;
  return `option --postgres: expected local or a postgres:// URL, got '${redactedUrl(value)}'`;
}

/**
 * The schema (the requests' db) of this run: unique to the process and the
 * moment, so that runs on one database never meet; dropped at the end.
 */
export const runSchemaName = () => `dalstress_${process.pid}_${Date.now().toString(36)}`;

/** The SQL that drops the run's schema (its name needs no escaping). */
export const dropSchemaSql = (schema) => `DROP SCHEMA IF EXISTS "${schema}" CASCADE`;

/**
 * --postgres local.  Returns null when the driver goes on in this process:
 * no `local` (o untouched), or this is the copy pg-cluster.sh runs (then
 * o.postgres becomes its server's URL).  Otherwise a Promise of the exit
 * code of the copy started under pg-cluster.sh.
 */
export function localPostgresOrRelaunch(o, { program, err }) {
  if (o.postgres !== 'local') return null;
  const mark = process.env[CHILD_MARK];
  if (mark === '1' || mark === '2') {
    const url = process.env.DALKIT_PG_URL ?? '';
    if (!isPostgresUrl(url)) {
      err(`${program}: --postgres local: ${CHILD_MARK} is set but DALKIT_PG_URL is not a postgres:// URL\n`);
      return Promise.resolve(2);
    }
    o.postgres = url;
    // Said once: "2" tells a copy started again (--attribute) it was said.
    if (mark === '1') {
      err(`${program}: --postgres local: a throwaway server at ${url} in ${process.env.DALKIT_PG_CLUSTER ?? '(unknown)'}, ` +
        `stopped when ${program} exits\n`);
      process.env[CHILD_MARK] = '2';
    }
    return null;
  }
  const deno = globalThis.Deno;
  if (deno && deno.permissions.querySync({ name: 'run' }).state !== 'granted') {
    err(`${program}: --postgres local starts a server only with Deno's --allow-run (npm run stress:deno gives it)\n`);
    return Promise.resolve(2);
  }
  if (!existsSync(PG_CLUSTER_SCRIPT)) {
    err(`${program}: --postgres local: ${PG_CLUSTER_SCRIPT} is missing (or give --postgres URL)\n`);
    return Promise.resolve(2);
  }
  return runUnderCluster(['--no-replica', '--', process.execPath, ...relaunchArgs()], { [CHILD_MARK]: '1' }, program);
}

/**
 * Run pg-cluster.sh run ARGS with env added, and resolve with its exit
 * code.  The script runs in a session of its own, so a terminal's Ctrl-C
 * reaches this process only, which passes SIGINT / SIGTERM / SIGHUP on
 * once: the script forwards it to the command and exits 128 + the signal
 * after the command has exited, having stopped the server.
 */
export async function runUnderCluster(args, env, program) {
  const { spawn } = await import('node:child_process'); // only here: it costs RSS in the measured process
  const child = spawn('bash', [PG_CLUSTER_SCRIPT, 'run', ...args], {
    stdio: 'inherit', env: { ...process.env, ...env }, detached: true,
  });
  const forward = (sig) => child.kill(sig);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const sig of signals) process.on(sig, forward);
  return new Promise((resolve) => {
    const done = (code) => {
      for (const sig of signals) process.off(sig, forward);
      resolve(code);
    };
    child.on('error', (e) => {
      process.stderr.write(`${program}: cannot start ${PG_CLUSTER_SCRIPT}: ${e.message}\n`);
      done(2);
    });
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 + (SIGNAL_NUMBERS[signal] ?? 0) : 2)));
  });
}

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
