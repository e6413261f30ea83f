// errors.js -- the one error class of the JS API.
//
// Every failure that comes from the native side (the shim, the DAL, or an
// SQLite error carried in a response's "e" field) is a DalError.  The code
// names come from the library itself (dalshim::code_name through the addon,
// dalshim_code_name through FFI), so there is no second table of numbers in
// JS that could drift from dalshim.h.  Input the JS side refuses before
// anything is sent (a function inside a filter, a wrong arity) is a
// TypeError, as for any JS API.

export class DalError extends Error {
  /**
   * @param {string} message  the library's message
   * @param {object} info
   * @param {string} info.code  the code's name, e.g. "DAL_E_REQUEST", "DALSHIM_E_CLOSED",
   *                            "DALSHIM_E_SQL" (an SQLite error carried in the response)
   * @param {number} info.errno the code's number (negative, from dalshim.h / dal.h)
   * @param {number|bigint} [info.requestId] the id of the request the error answers, when known
   * @param {number} [info.sqliteCode] SQLite's extended result code of an SQL error, when the
   *                            response carried one
   * @param {string} [info.sqlstate] on PostgreSQL, the SQLSTATE of an SQL error ("23505"), when
   *                            the response carried one
   */
  constructor(message, { code, errno, requestId, sqliteCode, sqlstate } = {}) {
    super(message);
    this.code = code ?? 'DAL_E_UNKNOWN';
    this.errno = errno ?? 0;
    if (requestId !== undefined) this.requestId = requestId;
    if (sqliteCode !== undefined) this.sqliteCode = sqliteCode;
    if (sqlstate !== undefined) this.sqlstate = sqlstate;
  }
}

Object.defineProperty(DalError.prototype, 'name', {
  value: 'DalError', writable: true, enumerable: false, configurable: true,
});
