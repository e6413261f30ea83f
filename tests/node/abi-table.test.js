// tests/node/abi-table.test.js -- ffi/abi.js against the C headers it
// restates (dal-shim/include/dalshim.h, dalmonitor.h): the headers are the
// one source of truth, and this test is what keeps the JS table honest.
//
//   - every DALSHIM_API / DALMON_API function is in SYMBOLS with the same
//     result and parameter types, mapped to abi.js's abstract types by the
//     rules written at the top of ffi/abi.js (and in cType() below);
//   - every SYMBOLS entry is declared in a header;
//   - CODES and STATS hold every result code and stat index of the headers,
//     each with the value of its #define;
//   - the FFI JS takes code and stat numbers from those objects: a literal
//     code compared with errno, or a constant declared from a literal and
//     labelled with a header name, fails here.
//
// Run: node --test tests/node/abi-table.test.js (ctest: ffi_abi_table).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CODES, STATS, SYMBOLS } from '../../ffi/abi.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADERS = ['dal-shim/include/dalshim.h', 'dal-shim/include/dalmonitor.h'];

const withoutComments = (text) => text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');
// "const char*" / "const  char *" -> "const char *"
const normaliseType = (t) => t.replace(/\s*\*\s*/g, ' *').replace(/\s+/g, ' ').trim();

// The exported functions of a header: name -> {result, params: [{type, name}]}.
function prototypes(file) {
  const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'))
    .split('\n').filter((line) => !line.trimStart().startsWith('#')).join('\n');
  const out = new Map();
  const re = /\b(?:DALSHIM_API|DALMON_API)\s+([^;(]*?)\b([A-Za-z_]\w*)\s*\(([^)]*)\)\s*;/g;
  for (const m of text.matchAll(re)) {
    const params = m[3].trim() === 'void' || m[3].trim() === '' ? [] : m[3].split(',').map((p) => {
      const pm = /^(.*?)([A-Za-z_]\w*)$/.exec(normaliseType(p));
      assert.ok(pm && pm[1].trim() !== '', `${file}: ${m[2]}: a parameter without a name or type: "${p.trim()}"`);
      return { type: normaliseType(pm[1]), name: pm[2] };
    });
    assert.ok(!out.has(m[2]), `${file}: ${m[2]} declared twice`);
    out.set(m[2], { file, result: normaliseType(m[1]), params });
  }
  return out;
}

// The #define integer constants of a header: name -> value.  A value is an
// integer literal, another constant, or a sum/difference of those in
// parentheses (DALSHIM_STAT_TOTAL); anything else (macros, guards) is skipped.
function defines(files) {
  const raw = new Map();
  for (const file of files) {
    for (const line of withoutComments(readFileSync(join(ROOT, file), 'utf8')).split('\n')) {
      const m = /^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+(.+?)\s*$/.exec(line);
      if (m && /^[-+()\sA-Z0-9_]+$/.test(m[2])) raw.set(m[1], m[2]);
    }
  }
  const values = new Map();
  const evaluate = (name, seen = new Set()) => {
    if (values.has(name)) return values.get(name);
    if (!raw.has(name) || seen.has(name)) return undefined;
    seen.add(name);
    const tokens = raw.get(name).match(/[A-Z_][A-Z0-9_]*|\d+|[-+()]/g) ?? [];
    let i = 0;
    const term = () => {
      const t = tokens[i++];
      if (t === '(') { const v = sum(); if (tokens[i++] !== ')') return NaN; return v; }
      if (t === '-') return -term();
      if (t === '+') return term();
      if (/^\d+$/.test(t ?? '')) return Number(t);
      const v = t === undefined ? undefined : evaluate(t, seen);
      return v === undefined ? NaN : v;
    };
    const sum = () => {
      let v = term();
      while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + term() : v - term();
      return v;
    };
    const v = sum();
    if (i !== tokens.length || !Number.isInteger(v)) return undefined;
    values.set(name, v);
    return v;
  };
  for (const name of raw.keys()) evaluate(name);
  return values;
}

// A C type as abi.js's abstract type (the rules of ffi/abi.js's header
// comment).  next: the type of the following parameter (a pointer followed
// by a size_t is a buffer with its length).
const INTEGERS = { int32_t: 'i32', int64_t: 'i64', size_t: 'usize' };
function cType(type, { result = false, next } = {}) {
  if (INTEGERS[type]) return INTEGERS[type];
  if (result) {
    if (type === 'void') return 'void';
    if (type === 'const char *') return 'str';
    if (type === 'void *') return 'ptr';
    return `(no abstract type for the result type "${type}")`;
  }
  if (!type.endsWith(' *')) return `(no abstract type for the parameter type "${type}")`;
  if (next === 'size_t') return 'buf';
  const base = type.replace(/^const /, '').slice(0, -2);
  if (base === 'char') return 'cstr';
  if (base === 'void') return 'ptr';
  if (INTEGERS[base]) return 'buf'; // an integer array or slot the caller owns
  return `(no abstract type for the parameter type "${type}")`;
}

const signature = (proto) => [
  cType(proto.result, { result: true }),
  proto.params.map((p, i) => cType(p.type, { next: proto.params[i + 1]?.type })),
];
const show = (name, [result, args]) => `${name}: ['${result}', [${args.map((a) => `'${a}'`).join(', ')}]]`;

const functions = new Map(HEADERS.flatMap((h) => [...prototypes(h)]));
const constants = defines(HEADERS);

test('the headers parse: both prefixes, and the functions every binding needs', () => {
  assert.ok([...functions.keys()].some((n) => n.startsWith('dalshim_')), 'no dalshim_* function found');
  assert.ok([...functions.keys()].some((n) => n.startsWith('dalmon_')), 'no dalmon_* function found');
  for (const n of ['dalshim_query', 'dalshim_query_ex', 'dalshim_query_into', 'dalshim_code_name', 'dalmon_mark_interrupted']) {
    assert.ok(functions.has(n), `${n} not found in the headers`);
  }
  assert.equal(constants.get('DALSHIM_STAT_TOTAL'), constants.get('DALSHIM_STAT_COUNT') + 21);
});

test('every exported function of the headers is in ffi/abi.js SYMBOLS with the same types', () => {
  const problems = [];
  for (const [name, proto] of functions) {
    const want = signature(proto);
    const c = `${proto.result} ${name}(${proto.params.map((p) => `${p.type} ${p.name}`).join(', ')})`.replace(/\* /g, '*');
    if (!(name in SYMBOLS)) problems.push(`missing from SYMBOLS: ${show(name, want)}   (${proto.file}: ${c})`);
    else if (JSON.stringify(SYMBOLS[name]) !== JSON.stringify(want)) {
      problems.push(`differs from ${proto.file}: abi.js has ${show(name, SYMBOLS[name])}, the header means ${show(name, want)}   (${c})`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every ffi/abi.js SYMBOLS entry is declared in a header', () => {
  const extra = Object.keys(SYMBOLS).filter((n) => !functions.has(n));
  assert.deepEqual(extra, [], `in abi.js but in neither ${HEADERS.join(' nor ')}`);
});

test('CODES and STATS hold every code and stat index of the headers, with their #define values', () => {
  const codeNames = [...constants.keys()].filter((n) => /^(DALSHIM|DALMON)_(OK|E_[A-Z0-9_]+)$/.test(n));
  const statNames = [...constants.keys()].filter((n) => /^DALSHIM_STAT_[A-Z0-9_]+$/.test(n));
  assert.ok(codeNames.length > 20 && statNames.length > 9, `parsed ${codeNames.length} codes, ${statNames.length} stats`);
  for (const [table, names, label] of [[CODES, codeNames, 'CODES'], [STATS, statNames, 'STATS']]) {
    const problems = [];
    for (const n of names) {
      if (!(n in table)) problems.push(`${label} lacks ${n} (${constants.get(n)})`);
    }
    for (const [n, v] of Object.entries(table)) {
      if (!constants.has(n)) problems.push(`${label}.${n} is not #defined in the headers`);
      else if (constants.get(n) !== v) problems.push(`${label}.${n} is ${v}, the header says ${constants.get(n)}`);
    }
    assert.deepEqual(problems, []);
  }
});

test('the FFI JS takes code and stat numbers from CODES / STATS, not literals', () => {
  const dirs = ['ffi', 'stress/js', 'stress/bench/ffi', 'tests/ffi'];
  const files = dirs.flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => /\.(m?js|ts)$/.test(f)).map((f) => join(d, f)));
  files.push('stress.ts', 'tests/node/ffi-koffi.test.js', 'tests/bun/ffi.test.js', 'tests/deno/ffi.test.js');
  const literal = [
    // e.errno === -25, errno !== -7
    /\berrno\s*[!=]==?\s*-\s*\d/,
    // const E_CLOSED = -24; // DALSHIM_E_CLOSED   /   const STAT_CALLS = 0; // dalshim.h DALSHIM_STAT_CALLS
    /=\s*-?\d+\s*[;,]\s*\/\/\s*(?:dal(?:shim|monitor)\.h\s+)?DAL(?:SHIM|MON)_/,
  ];
  const found = [];
  for (const f of files) {
    if (f === 'ffi/abi.js') continue; // the table itself
    readFileSync(join(ROOT, f), 'utf8').split('\n').forEach((line, i) => {
      if (literal.some((re) => re.test(line))) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});
