// napi-leak.mjs -- a --target over the leak fixture addon (test fixture:
// napi-leak/leak_fixture.cpp, built as build/tests/targets/leak_fixture.node;
// docs/targets.md "Leak fixtures").  One unit of the chosen kind per
// iteration, on Node, Bun and Deno (each loads the addon through
// createRequire; Deno needs --allow-ffi, which npm run stress:deno gives).
//
//   --target-option kind=napi_ref  new Handle(bytes) (an ObjectWrap with a
//                                  malloc'ed payload), retain() (its napi_ref
//                                  made strong), release() unless leaking:
//                                  the leak keeps the JS object and the payload
//                    kind=malloc    malloc(bytes) and touch it, free unless leaking
//                    kind=buffer    a Buffer of `bytes` held by a native strong
//                                  reference; the previous one released unless
//                                  leaking: the JS external layer grows, the
//                                  addon's own memory does not
//   --target-option mode=clean|leak|step, bytes=, step_bytes=, step_at=,
//                   library=   (fixture-options.js)
//
//   npm run stress -- --target tests/targets/napi-leak.mjs --target-option kind=malloc --target-option mode=leak --iterations 1000000
//   bun stress.ts --target tests/targets/napi-leak.mjs --target-option kind=buffer --target-option mode=step
import { createRequire } from 'node:module';

import { fixtureOptions } from './fixture-options.js';

const KINDS = ['malloc', 'napi_ref', 'buffer'];

const UNITS = {
  napi_ref(f, bytes, leak) {
    const h = new f.Handle(bytes);
    h.retain();
    if (!leak) h.release();
  },
  malloc(f, bytes, leak) {
    f.churn(bytes, leak);
  },
  buffer(f, bytes, leak) {
    const b = f.holdBuffer(bytes, leak);
    if (b.length !== bytes || b[0] !== 0x5a) throw new Error(`holdBuffer gave ${b.length} bytes starting ${b[0]}`);
  },
};

/** @type {import('../../lib/index.js').Target<object>} */
export default {
  name: 'leak fixture addon',

  setup(ctx) {
    const s = fixtureOptions(ctx, 'leak_fixture.node', { kind: KINDS });
    const addon = createRequire(import.meta.url)(s.library);
    // A leaking buffer run keeps every Buffer: room for all of them, made now.
    if (s.kind === 'buffer') addon.reserveSlots(s.mode === 'leak' ? ctx.iterations : 1);
    return { ...s, addon, unit: UNITS[s.kind], leak: s.mode === 'leak' };
  },

  iteration(s, i) {
    s.unit(s.addon, s.bytes, s.leak);
    if (s.mode === 'step' && i === s.stepIteration) s.addon.reserve(s.stepBytes);
  },

  teardown(s) {
    if (s.mode === 'step' && s.addon.counts().reservedBytes !== s.stepBytes) {
      throw new Error(`the step reserved ${s.addon.counts().reservedBytes} bytes, not ${s.stepBytes}`);
    }
    s.addon.releaseAll();
  },
};
