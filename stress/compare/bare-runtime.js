// bare-runtime.js -- a path's runtime with nothing of the kit loaded, for
// stress:compare's "RSS over the bare runtime" (docs/compare.md): started
// with the same binary and flags as the path's driver (paths.js bareArgv),
// it runs an empty loop for a moment, turns the event loop once, and prints
// its resident set size as one JSON line on stdout.  The driver's RSS after
// load minus this is what the kit itself costs.
//
// The figure is process.memoryUsage().rss, which Node, Bun and Deno read
// from the kernel's count of resident pages (/proc/self/stat or statm), the
// count the driver's monitor reads (/proc/self/statm); Deno would not let
// this script read /proc itself without --allow-all, which the driver does
// not get either.
import process from 'node:process';

const until = performance.now() + 100;
let spins = 0;
while (performance.now() < until) spins++;
await new Promise((resolve) => setTimeout(resolve, 10));
process.stdout.write(`${JSON.stringify({ rss_bytes: process.memoryUsage().rss, spins })}\n`);
