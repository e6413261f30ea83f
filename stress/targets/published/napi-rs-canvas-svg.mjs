// napi-rs-canvas-svg.mjs -- a --target (docs/targets.md) over a published
// package: @napi-rs/canvas's loadImage() of an SVG, the call of
// Brooooooklyn/canvas#1023 (about 240 KB of Skia memory kept per call up to
// 0.1.68, fixed in 0.1.69; 0.1.69 still keeps about 84 B per call, which
// later releases do not).  The kit does not depend on the package: copy this
// file into a directory of your own where the package is installed, since
// the import resolves from the target file's directory.
//
//   mkdir /tmp/canvas-check && cp stress/targets/published/napi-rs-canvas-svg.mjs /tmp/canvas-check/
//   (cd /tmp/canvas-check && npm init -y && npm i @napi-rs/canvas@0.1.68)
//   npm run stress -- --target /tmp/canvas-check/napi-rs-canvas-svg.mjs --iterations 4000
//     -> LEAK in rss malloc native:skia.linux-x64-gnu.node (+268169.8 B/iteration), exit 1
//   bun stress.ts --target /tmp/canvas-check/napi-rs-canvas-svg.mjs --iterations 4000
//
// With a fixed release (npm i @napi-rs/canvas@0.1.99): NO LEAK, exit 0, at
// 20,000 iterations and more.  4,000 iterations of the leaky release keep
// about 1 GB: a longer run of it needs that much memory per 4,000.
import { loadImage } from '@napi-rs/canvas';

const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">' +
    '<rect x="16" y="16" width="224" height="224" rx="24" fill="#36c"/>' +
    '<circle cx="128" cy="128" r="64" fill="#fc3"/></svg>',
);

/** @type {import('dalkit').Target<object>} */
export default {
  name: '@napi-rs/canvas loadImage(svg)',
  async iteration() {
    const img = await loadImage(SVG);
    if (img.width !== 256 || img.height !== 256) throw new Error(`loadImage gave ${img.width}x${img.height}, not 256x256`);
  },
};
