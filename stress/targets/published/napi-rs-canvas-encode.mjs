// napi-rs-canvas-encode.mjs -- a --target (docs/targets.md) over a published
// package: @napi-rs/canvas's canvas.encode('png') of a 600x600 canvas, the
// call of Brooooooklyn/canvas#716 and oven-sh/bun#8351 (the encoded image's
// Skia memory kept per call, about 1.4 MB, up to 0.1.47; fixed in 0.1.48 by
// #786 and for PNG in 0.1.49 by #791).  The kit does not depend on the
// package: copy this file into a directory of your own where the package is
// installed, since the import resolves from the target file's directory.
//
//   mkdir /tmp/canvas-check && cp stress/targets/published/napi-rs-canvas-encode.mjs /tmp/canvas-check/
//   (cd /tmp/canvas-check && npm init -y && npm i @napi-rs/canvas@0.1.47)
//   npm run stress -- --target /tmp/canvas-check/napi-rs-canvas-encode.mjs --iterations 400
//     -> LEAK in rss malloc native:skia.linux-x64-gnu.node (+1440000.0 B/iteration), exit 1
//   bun stress.ts --target /tmp/canvas-check/napi-rs-canvas-encode.mjs --iterations 400
//
// With the fixed release (npm i @napi-rs/canvas@0.1.49): NO LEAK, exit 0.
// An iteration takes tens of milliseconds (a 600x600 PNG); 400 iterations
// of the leaky release keep about 580 MB.
import { createCanvas } from '@napi-rs/canvas';

const SIDE = 600;

/** @type {import('dalkit').Target<object>} */
export default {
  name: '@napi-rs/canvas encode png',
  async iteration() {
    const canvas = createCanvas(SIDE, SIDE);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = 'black';
    ctx.fillRect(0, 0, SIDE, SIDE);
    const png = await canvas.encode('png');
    // A PNG starts with its 8-byte signature: \x89PNG\r\n\x1a\n.
    if (png.length < 8 || png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47) throw new Error('encode gave no PNG');
  },
};
