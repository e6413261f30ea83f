// tests/ffi/signal-child.js -- a child process for the signal tests of the FFI
// suites: loads libdalshim.so (and so the Go runtime of libdal.so) through
// this runtime's binding, answers a query, then:
//   exit     process.exit(7) -- must exit 7, not hang in the Go runtime
//   wait     print "ready" and keep querying; SIGINT must kill it with SIGINT
//   handler  the same with a JS SIGINT handler that exits 3
import process from 'node:process';

const rt = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'koffi';
const { open } = await import(`../../ffi/${rt}.js`);
const { REFERENCE_REQUEST } = await import('../../stress/js/workload.js');

// argv: ... MODE DIR (the parent creates and removes DIR).
const [mode, dir] = process.argv.slice(-2);
const db = open({ dir });
if (db.queryRaw(REFERENCE_REQUEST).length !== 34) process.exit(5);

if (mode === 'exit') process.exit(7);
if (mode === 'handler') process.on('SIGINT', () => process.exit(3));
// Keep the event loop busy with queries (Go threads active) until the signal.
setInterval(() => { for (let i = 0; i < 100; i++) db.queryRaw(REFERENCE_REQUEST); }, 1);
process.stdout.write('ready\n');
