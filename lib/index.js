// index.js -- the package's ESM entry (Node.js, through the addon).
export { open, load, encodeRequest, codeName, Database, addonPath, native } from './database.js';
export { Query, METHOD_ORDER, DEFAULT_DB } from './builder.js';
export { DalError } from './errors.js';
