// plants.js -- planted JS leaks, to prove the verdict catches them in the
// JS layers (the native plants are open() options, see options.js).
//
// Each plant retains B bytes per query on average, in fixed-size blocks
// (as the DAL's plants do, native/internal/planted/planted.go), so the slope
// the monitor fits is the planted size:
//
//   js_heap      1 KiB strings kept in an array: V8 heap (heapUsed).  Built
//                with TextDecoder from a byte template, so each is a flat
//                sequential string of ~1 KiB (header and array slot included),
//                never a rope sharing its characters with another.
//   js_external  16 KiB Uint8Arrays kept in an array: backing stores outside
//                the heap (external / arrayBuffers).  Large blocks keep the
//                on-heap part (the Uint8Array objects, ~150 B each) small, so
//                the leak shows in js_external, not in js_heap too.
//
// Runtime-agnostic: TextDecoder and Uint8Array exist in Node, Bun and Deno.

const STRING_BLOCK = 1024;
// V8's flat one-byte string: 16-byte header; plus the 8-byte slot in `kept`.
const STRING_OVERHEAD = 24;
const EXTERNAL_BLOCK = 16 * 1024;

export class JsPlant {
  /** @param {'js_heap'|'js_external'} layer  @param {number} bytesPerQuery */
  constructor(layer, bytesPerQuery) {
    this.layer = layer;
    this.bytesPerQuery = bytesPerQuery;
    this.block = layer === 'js_heap' ? STRING_BLOCK : EXTERNAL_BLOCK;
    this.owed = 0;
    this.kept = [];
    this.planted = 0;
    if (layer === 'js_heap') {
      this.template = new Uint8Array(STRING_BLOCK - STRING_OVERHEAD).fill(0x78); // 'x'
      this.decoder = new TextDecoder(); // ASCII bytes: a one-byte string
    }
  }

  tick() {
    this.owed += this.bytesPerQuery;
    while (this.owed >= this.block) {
      this.owed -= this.block;
      this.planted += this.block;
      if (this.layer === 'js_heap') {
        // A different first byte each time: the strings are distinct values.
        this.template[0] = 0x41 + (this.kept.length % 26);
        this.kept.push(this.decoder.decode(this.template));
      } else {
        const b = new Uint8Array(this.block);
        b[0] = 1; // touched: resident, like a real leaked buffer
        this.kept.push(b);
      }
    }
  }
}

export function makeJsPlant(plant) {
  if (!plant || (plant.layer !== 'js_heap' && plant.layer !== 'js_external')) return null;
  return new JsPlant(plant.layer, plant.bytes);
}
