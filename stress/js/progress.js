// progress.js -- the progress line on stderr, as dalstress prints it:
// one updating line on a TTY (done, q/s, ETA, RSS), otherwise a plain line
// every 10 % (or 30 s).  Runtime-agnostic: writes through a function.

const TTY_EVERY_MS = 250;
const PLAIN_EVERY_MS = 30_000;

// 1,234,567 -- by hand: toLocaleString would page in ICU data (~1 MB of RSS
// in the measured process).
export function grouped(n) {
  const s = String(Math.round(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function clock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${r}` : `${m}:${r}`;
}

export class Progress {
  /**
   * @param {object} cfg
   * @param {string} cfg.name       prefix, e.g. "node-stress"
   * @param {number} cfg.total      planned queries
   * @param {'auto'|'line'|'plain'|'off'} cfg.style
   * @param {boolean} cfg.isTTY     stderr is a terminal
   * @param {(s: string) => void} cfg.write   writes to stderr
   * @param {() => number} cfg.rss  RSS in bytes (or -1)
   * @param {string} [cfg.unit]     'q' (queries) or 'it' (a --target's iterations): "q/s", "it/s"
   */
  constructor({ name, total, style, isTTY, write, rss, unit = 'q' }) {
    this.name = name;
    this.unit = unit;
    this.total = total;
    this.write = write;
    this.rss = rss;
    this.mode = style === 'auto' ? (isTTY ? 'line' : 'plain') : style;
    this.start = performance.now();
    this.lastShown = 0;
    this.nextTenth = 1;
    this.open = false;
  }

  #text(done, final) {
    const elapsed = (performance.now() - this.start) / 1000;
    const qps = elapsed > 0 ? done / elapsed : 0;
    const pct = ((100 * done) / this.total).toFixed(1).padStart(5);
    const rss = this.rss();
    const tail = final ? `elapsed ${clock(elapsed)}` : `ETA ${qps > 0 ? clock((this.total - done) / qps) : '?'}`;
    return `${this.name}: ${pct}%  ${grouped(done)}/${grouped(this.total)}  ${grouped(qps)} ${this.unit}/s  ${tail}` +
      (rss >= 0 ? `  RSS ${(rss / 1048576).toFixed(1)} MiB` : '');
  }

  /** Call often; prints only when due. */
  update(done) {
    if (this.mode === 'off') return;
    const now = performance.now();
    if (this.mode === 'line') {
      if (now - this.lastShown < TTY_EVERY_MS) return;
      this.lastShown = now;
      this.write(`\r${this.#text(done, false)}\x1b[K`);
      this.open = true;
      return;
    }
    const tenth = Math.floor((10 * done) / this.total);
    if (tenth >= this.nextTenth || now - this.lastShown >= PLAIN_EVERY_MS) {
      if (tenth >= this.nextTenth) this.nextTenth = tenth + 1;
      this.lastShown = now;
      if (done < this.total) this.write(`${this.#text(done, false)}\n`);
    }
  }

  /** The last line (elapsed instead of ETA). */
  finish(done) {
    if (this.mode === 'off') return;
    this.write(`${this.mode === 'line' ? '\r' : ''}${this.#text(done, true)}${this.mode === 'line' ? '\x1b[K' : ''}\n`);
    this.open = false;
  }
}
