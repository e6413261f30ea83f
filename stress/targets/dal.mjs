// dal.mjs -- the kit's own DAL written as a --target (docs/targets.md): a
// database opened in ctx.dir, and per iteration the reference query (the
// 87-byte request of --workload reference) through queryInto, its 34-byte
// answer checked byte for byte.  It must give the verdicts of
// `--workload reference`: NO LEAK, and with a planted leak the same layer.
// Because it loads the DAL, the report has every layer (go_heap, sqlite,
// dal_buffers, shim_buffers, statements too).
//
//   npm run stress -- --target stress/targets/dal.mjs --iterations 1000000
//   npm run stress -- --target stress/targets/dal.mjs --target-option plant=go_cmem:16 --iterations 1000000
//
// ctx.options.plant = LAYER:BYTES plants a native leak in the DAL or the shim
// (go_cmem, go_heap, sqlite_stmt, shim_malloc; docs/leak-verdict.md), through
// the same open options as --plant-leak.  The DAL comes through the runtime's
// path: the Node addon (lib/), bun:ffi or Deno.dlopen (ffi/), the same
// libraries the driver's monitor reads its native figures from.
import { NATIVE_PLANTS, openOptions, parsePlant } from '../js/options.js';
import { REFERENCE_REQUEST, REFERENCE_RESPONSE } from '../js/workload.js';

const API = { node: '../../lib/index.js', bun: '../../ffi/bun.js', deno: '../../ffi/deno.js' };

/** @type {import('../../lib/index.js').Target<object>} */
export default {
  name: 'the kit\'s DAL: reference request',

  async setup(ctx) {
    let options = '';
    if (ctx.options.plant !== undefined) {
      const plant = parsePlant(ctx.options.plant, 'target option plant');
      if (!NATIVE_PLANTS.includes(plant.layer)) {
        throw new Error(`plant=${ctx.options.plant}: ${plant.layer} is a JS layer; plant it with --plant-leak ${ctx.options.plant}`);
      }
      options = openOptions({ plant });
    }
    const { open } = await import(API[ctx.runtime]);
    return { db: open({ dir: ctx.dir, options }), answer: new Uint8Array(4096) };
  },

  iteration(s) {
    const n = s.db.queryInto(REFERENCE_REQUEST, s.answer);
    if (n !== REFERENCE_RESPONSE.length) throw new Error(`answer of ${n} bytes, not ${REFERENCE_RESPONSE.length}`);
    for (let k = 0; k < n; k++) {
      if (s.answer[k] !== REFERENCE_RESPONSE[k]) throw new Error(`answer byte ${k} is ${s.answer[k]}, not ${REFERENCE_RESPONSE[k]}`);
    }
  },

  teardown(s) {
    s.db.close();
  },
};
