// Preloaded with `node --require`: at exit, writes the built-in modules this
// process loaded (process.moduleLoadList) to the file VIDPUB_TEST_MODULES_OUT names.
'use strict';
const { writeFileSync } = process.getBuiltinModule('node:fs');
process.on('exit', () => {
  writeFileSync(process.env.VIDPUB_TEST_MODULES_OUT, process.moduleLoadList.join('\n'));
});
