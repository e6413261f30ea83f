// workload-expr.js -- the integer expressions of the workload format
// (docs/workloads.md, "Templates"): decimal literals, variable names,
// + - * / %, unary -, parentheses, C precedence, / and % truncating toward
// zero as in C.
//
// An expression is compiled once, when the workload is loaded, into a
// closure over variable SLOTS (indices into the environment array the
// expander fills per query), so an unknown variable is an error at load
// time and evaluating costs no lookup by name.
//
// Range: JS numbers, exact within +-(2^53 - 1).  The format says 64-bit;
// a value outside the exact range (a literal, or any intermediate result)
// is an error here, never a silently rounded request.  The workloads need
// far less: the largest value they compute is a request id, (t + 1) * 2^32 + n.
// BigInt would cover all of int64 but costs ~10x per operation on the
// per-query path, for values no workload uses.

export class WorkloadError extends Error {}

const MAX = Number.MAX_SAFE_INTEGER;

function exact(v, what, text) {
  if (v > MAX || v < -MAX) {
    throw new WorkloadError(`expression "${text}": ${what} is outside +-(2^53 - 1), the JS drivers' exact integer range`);
  }
  return v;
}

// Tokens: numbers, names, operators and parentheses; whitespace ignored.
function tokenize(text) {
  const re = /\s*(?:([0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/%()]))/y;
  const out = [];
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) throw new WorkloadError(`expression "${text}": unexpected "${text.slice(at).trim()[0]}" at offset ${at}`);
    at = re.lastIndex;
    if (m[1] !== undefined) out.push({ kind: 'num', text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: 'name', text: m[2] });
    else out.push({ kind: 'op', text: m[3] });
  }
  return out;
}

/**
 * Compile `text` into (env) => integer.
 * @param {string} text
 * @param {Map<string, number>} scope  variable name -> slot in env
 * @returns {{eval: (env: number[]) => number, constant: boolean, slots: number[]}}
 *          slots: the variables it reads (what its value depends on)
 */
export function compileExpr(text, scope) {
  if (typeof text !== 'string') throw new WorkloadError(`expression: expected a string, got ${JSON.stringify(text)}`);
  const tokens = tokenize(text);
  if (tokens.length === 0) throw new WorkloadError('expression: empty');
  const used = new Set();
  let i = 0;
  const peek = () => tokens[i];
  const isOp = (t, ops) => t !== undefined && t.kind === 'op' && ops.includes(t.text);

  // primary: number | name | '(' additive ')' | '-' primary | '+' primary
  function primary() {
    const t = tokens[i++];
    if (t === undefined) throw new WorkloadError(`expression "${text}": ends too early`);
    if (t.kind === 'num') {
      const v = Number(t.text);
      if (v > MAX) throw new WorkloadError(`expression "${text}": literal ${t.text} is outside +-(2^53 - 1), the JS drivers' exact integer range`);
      return { constant: true, value: v };
    }
    if (t.kind === 'name') {
      const slot = scope.get(t.text);
      if (slot === undefined) {
        throw new WorkloadError(`expression "${text}": unknown variable "${t.text}" (known here: ${[...scope.keys()].join(', ')})`);
      }
      used.add(slot);
      return { constant: false, fn: (env) => env[slot] };
    }
    if (t.text === '(') {
      const e = additive();
      const close = tokens[i++];
      if (!isOp(close, [')'])) throw new WorkloadError(`expression "${text}": missing ")"`);
      return e;
    }
    if (t.text === '-' || t.text === '+') {
      const e = primary();
      if (t.text === '+') return e;
      return fold(e, null, (a) => -a, 'negation');
    }
    throw new WorkloadError(`expression "${text}": unexpected "${t.text}"`);
  }

  function multiplicative() {
    let left = primary();
    while (isOp(peek(), ['*', '/', '%'])) {
      const op = tokens[i++].text;
      left = binary(op, left, primary());
    }
    return left;
  }

  function additive() {
    let left = multiplicative();
    while (isOp(peek(), ['+', '-'])) {
      const op = tokens[i++].text;
      left = binary(op, left, multiplicative());
    }
    return left;
  }

  // C semantics on exact integers: % is JS's remainder (sign of the
  // dividend, as C99); the quotient is formed from it, (a - a % b) / b, an
  // exact division -- Math.trunc(a / b) can round up for large a.
  function divide(a, b) {
    if (b === 0) throw new WorkloadError(`expression "${text}": division by zero`);
    return (a - (a % b)) / b + 0; // + 0: -0 (e.g. -1 / 2) is the integer 0
  }
  function remainder(a, b) {
    if (b === 0) throw new WorkloadError(`expression "${text}": division by zero`);
    return (a % b) + 0;
  }
  const OPS = {
    '+': (a, b) => exact(a + b, 'a sum', text),
    '-': (a, b) => exact(a - b, 'a difference', text),
    '*': (a, b) => exact(a * b, 'a product', text),
    '/': divide,
    '%': remainder,
  };

  function binary(op, l, r) { return fold(l, r, OPS[op]); }

  // Constant operands are folded now (a division by zero among constants is
  // a load-time error); otherwise a closure.
  function fold(l, r, f) {
    if (r === null) {
      if (l.constant) return { constant: true, value: f(l.value) + 0 };
      const lf = l.fn;
      return { constant: false, fn: (env) => f(lf(env)) + 0 };
    }
    if (l.constant && r.constant) return { constant: true, value: f(l.value, r.value) };
    // A constant operand is captured as a value, not called (x * 7 % 100).
    if (r.constant) {
      const lf = l.fn;
      const rv = r.value;
      return { constant: false, fn: (env) => f(lf(env), rv) };
    }
    const rf = r.fn;
    if (l.constant) {
      const lv = l.value;
      return { constant: false, fn: (env) => f(lv, rf(env)) };
    }
    const lf = l.fn;
    return { constant: false, fn: (env) => f(lf(env), rf(env)) };
  }

  const e = additive();
  if (i < tokens.length) throw new WorkloadError(`expression "${text}": unexpected "${tokens[i].text}"`);
  if (e.constant) {
    const v = e.value;
    return { constant: true, value: v, eval: () => v, slots: [] };
  }
  return { constant: false, eval: e.fn, slots: [...used] };
}
