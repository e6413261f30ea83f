// stress/js/ffi-monitor.js -- the kit's one monitor (dal-shim/include/dalmonitor.h,
// inside libdalshim.so) through a raw FFI binding (ffi/bun.js, ffi/deno.js,
// ffi/koffi.js), with the same methods as
// the Node addon's `native.monitor` (addon/src/monitor.cpp), so that
// stress/js/driver.js drives every runtime the same way.
//
// A negative dalmon_* result throws a DalError whose code is named by the
// library (dalshim_code_name covers the DALMON_E_* range too).
import { cString } from '../../ffi/abi.js';
import { DalError } from '../../lib/errors.js';

const REPORT_INITIAL = 16 * 1024;

export function createMonitor(binding) {
  const { raw } = binding;
  const fail = (fn, rc) => {
    const errno = Number(rc);
    return new DalError(`${fn}: ${raw.dalmon_last_error()}`, { code: raw.dalshim_code_name(errno), errno });
  };
  const checked = (fn, rc) => {
    if (rc < 0) throw fail(fn, rc);
    return Number(rc);
  };
  // Latencies arrive as a Float64Array of nanoseconds (JS clocks give
  // doubles) and cross as int64: one reused array, converted per batch.
  let batch = new BigInt64Array(4096);
  let reportBuf = new Uint8Array(REPORT_INITIAL);
  const utf8 = new TextDecoder();

  // dalmon_report_text/json: length query, then the copy (the text is
  // rendered once and cached by the monitor, so both calls see the same bytes).
  const report = (fn, f, run) => {
    let n = checked(fn, f(run, reportBuf, reportBuf.length));
    if (n > reportBuf.length) {
      reportBuf = new Uint8Array(n);
      n = checked(fn, f(run, reportBuf, reportBuf.length));
    }
    return utf8.decode(reportBuf.subarray(0, n));
  };

  return {
    start: (params) => checked('dalmon_start', raw.dalmon_start(cString(params, 'monitor.start'))),
    markStartup: (run, rss, ns) => checked('dalmon_mark_startup', raw.dalmon_mark_startup(run, rss, ns)),
    sample: (run, q, heapUsed, heapTotal, external, arrayBuffers) =>
      checked('dalmon_sample', raw.dalmon_sample(run, q, heapUsed, heapTotal, external, arrayBuffers)),
    recordLatencies(run, ns, count) {
      if (!(ns instanceof Float64Array)) throw new TypeError('monitor.recordLatencies: ns must be a Float64Array');
      if (!Number.isInteger(count) || count < 0 || count > ns.length) {
        throw new RangeError('monitor.recordLatencies: count out of range');
      }
      if (batch.length < count) batch = new BigInt64Array(count);
      for (let i = 0; i < count; i++) {
        const d = ns[i];
        batch[i] = Number.isFinite(d) ? BigInt(Math.trunc(d)) : -1n; // -1: rejected by the monitor
      }
      return checked('dalmon_record_latencies_ns', raw.dalmon_record_latencies_ns(run, batch, count));
    },
    count: (run, q, bytesIn, bytesOut, errors) =>
      checked('dalmon_count', raw.dalmon_count(run, q, bytesIn, bytesOut, errors)),
    fail: (run, reason) => checked('dalmon_fail', raw.dalmon_fail(run, cString(String(reason), 'monitor.fail'))),
    // Stopped early (Ctrl-C): partial verdicts.
    markInterrupted: (run, cause) => checked('dalmon_mark_interrupted',
      raw.dalmon_mark_interrupted(run, cString(String(cause), 'monitor.markInterrupted'))),
    finish: (run) => checked('dalmon_finish', raw.dalmon_finish(run)),
    // --confirm: is the finished run borderline (1/0); run repeats firstRun.
    borderline: (run) => checked('dalmon_borderline', raw.dalmon_borderline(run)),
    markConfirmation: (run, firstRun) => checked('dalmon_mark_confirmation', raw.dalmon_mark_confirmation(run, firstRun)),
    reportText: (run) => report('dalmon_report_text', raw.dalmon_report_text, run),
    reportJson: (run) => report('dalmon_report_json', raw.dalmon_report_json, run),
    writeJson: (run, path) => checked('dalmon_write_json', raw.dalmon_write_json(run, cString(path, 'monitor.writeJson'))),
    end: (run) => checked('dalmon_end', raw.dalmon_end(run)),
    nowNs: () => Number(raw.dalmon_now_ns()),
    rssBytes: () => Number(raw.dalmon_rss_bytes()),
    lastError: () => raw.dalmon_last_error(),
  };
}
