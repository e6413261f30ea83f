// worker.terminate() at any moment -- while the worker is still loading
// dalkit.node, or with async queries in flight -- ends that worker only.
// node-addon-api used to throw a Napi::Error from a napi call that failed
// because the environment was terminating; nothing could catch it and the
// whole process aborted (std::terminate, exit 134).  The workers run in a
// child process so such an abort fails this test instead of killing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

import { root, tempDir } from './helpers.js';

const lib = pathToFileURL(join(root, 'lib', 'index.js')).href;
const workload = pathToFileURL(join(root, 'stress', 'js', 'workload.js')).href;

// Each worker loads the addon, opens the directory and keeps 8 raw and
// into queries in flight until it is terminated.
const workerSource = `
  const { workerData, parentPort } = require('node:worker_threads');
  (async () => {
    const { open } = await import(${JSON.stringify(lib)});
    const { REFERENCE_REQUEST } = await import(${JSON.stringify(workload)});
    const db = open({ dir: workerData });
    for (let batch = 0; ; batch++) {
      const t = new Uint8Array(8);
      await Promise.all(Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? db.queryRawAsync(REFERENCE_REQUEST) : db.queryIntoAsync(REFERENCE_REQUEST, t)).catch(() => {})));
      if (batch === 0) parentPort.postMessage('querying');
    }
  })();
`;

// 20 workers per round.  Even ones are terminated i * 2^round ms after they
// were created (most still loading the module), odd ones i * 2^round ms
// after their first batch of queries settled (queries in flight).
const childSource = `
  const { Worker } = require('node:worker_threads');
  const dir = process.argv[1];
  (async () => {
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => new Promise((done) => {
        const w = new Worker(${JSON.stringify(workerSource)}, { eval: true, workerData: dir });
        const stop = () => setTimeout(() => w.terminate().then(done, done), i * 2 ** round);
        w.on('error', () => {});
        if (i % 2 === 0) stop();
        else w.once('message', stop);
      })));
    }
    console.log('all terminated');
  })();
`;

test('terminating workers that load the addon or run async queries never ends the process', async () => {
  const tmp = tempDir();
  try {
    const child = spawn(process.execPath, ['-e', childSource, tmp.dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const [code, signal] = await new Promise((done) => child.on('exit', (c, s) => done([c, s])));
    assert.equal(signal, null, `killed by ${signal}: ${err}`);
    assert.equal(code, 0, `exit ${code}: ${err}`);
    assert.match(out, /all terminated/);
  } finally {
    tmp.cleanup();
  }
});
