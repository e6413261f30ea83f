// workload-backend.js -- the backends a workload runs on, and the one
// template that differs between them (docs/workloads.md, "Per backend"):
//
//   {"$backend": {"sqlite": A, "postgres": B}}
//
// anywhere in a workload file is A on SQLite and B on PostgreSQL.  It is
// resolved on the parsed JSON before anything else is read, so every other
// rule (keys, templates, expressions, the trial expansion) applies to the
// chosen branch.  Every backend must be given: one file holds each
// backend's answer, and none is guessed.  dalstress does the same
// (stress/native/workload_backend.cpp).
import { WorkloadError } from './workload-expr.js';

/** The backends, as --backends and the report name them; the first is the default. */
export const BACKENDS = Object.freeze(['sqlite', 'postgres']);
export const DEFAULT_BACKEND = BACKENDS[0];

const KEY = '$backend';

/** The JSON value v with every {"$backend": {...}} replaced by backend's branch. */
export function forBackend(v, backend, at = '') {
  if (!BACKENDS.includes(backend)) throw new WorkloadError(`unknown backend "${backend}" (expected ${BACKENDS.join(', ')})`);
  return select(v, backend, at);
}

function select(v, backend, at) {
  if (Array.isArray(v)) return v.map((x, i) => select(x, backend, `${at}[${i}]`));
  if (v === null || typeof v !== 'object') return v;
  if (Object.hasOwn(v, KEY)) {
    const where = at || '(the file)';
    const keys = Object.keys(v);
    if (keys.length !== 1) throw new WorkloadError(`${where}: ${KEY} takes no other key (got ${keys.join(', ')})`);
    const branches = v[KEY];
    if (branches === null || typeof branches !== 'object' || Array.isArray(branches)) {
      throw new WorkloadError(`${where}.${KEY}: expected an object of ${BACKENDS.join(', ')}`);
    }
    for (const k of Object.keys(branches)) {
      if (!BACKENDS.includes(k)) throw new WorkloadError(`${where}.${KEY}.${k}: unknown backend (expected ${BACKENDS.join(', ')})`);
    }
    for (const k of BACKENDS) if (!Object.hasOwn(branches, k)) throw new WorkloadError(`${where}.${KEY}.${k}: missing`);
    return select(branches[backend], backend, `${where}.${KEY}.${backend}`);
  }
  const out = {};
  // defineProperty: a "__proto__" key stays a key, as JSON.parse made it.
  for (const [k, x] of Object.entries(v)) {
    Object.defineProperty(out, k, { value: select(x, backend, at ? `${at}.${k}` : k), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
