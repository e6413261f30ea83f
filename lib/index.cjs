// index.cjs -- the package's CommonJS entry.  The implementation is the ESM
// one (one implementation of each idea); Node >= 20.19 loads ESM from
// require() synchronously, which is what package.json "engines" asks for.
'use strict';
module.exports = require('./index.js');
