// Preloaded with `node --require`: at exit, writes the built-in modules this
// process loaded (process.moduleLoadList) and the files it required
// ("file <path>", from require.cache) to the file VIDPUB_TEST_MODULES_OUT names.
/* global require -- CommonJS, preloaded with --require */
'use strict';
const { writeFileSync } = process.getBuiltinModule('node:fs');
process.on('exit', () => {
  const files = Object.keys(require.cache).map((f) => `file ${f}`);
  writeFileSync(process.env.VIDPUB_TEST_MODULES_OUT, [...process.moduleLoadList, ...files].join('\n'));
});
