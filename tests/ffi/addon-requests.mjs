// tests/ffi/addon-requests.mjs -- run by Node: prints, as JSON {name: hex},
// the request bytes the Node addon (build/out/dalkit.node, or $DALKIT_ADDON)
// encodes in C++ for every query of REQUEST_TABLE.  The Bun, Deno and koffi
// suites compare their msgpackr bytes with these.  Exits 1 with a message
// when the addon cannot be loaded: a comparison is never skipped.
import { REQUEST_TABLE, TABLE_ID, hex } from './cases.js';

let lib;
try {
  lib = await import('../../lib/index.js');
} catch (e) {
  process.stderr.write(`addon_requests: cannot load the addon: ${e.message}\n`);
  process.exit(1);
}
const root = { In: (...a) => new lib.Query(null).In(...a) };
const out = {};
for (const [name, build, id = TABLE_ID] of REQUEST_TABLE) out[name] = hex(lib.encodeRequest(build(root), id));
process.stdout.write(JSON.stringify(out));
