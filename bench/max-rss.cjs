// Preloaded (node -r) into a measured vidpub process by bench/watch.bench.mjs: on exit, its peak
// resident memory (maxRSS, KB) and the CPU it used (user + system, µs) are appended to the file
// VIDPUB_BENCH_RSS_FILE names.
'use strict';
/* global require */
const file = process.env.VIDPUB_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a preload of plain CommonJS
    require('node:fs').appendFileSync(file, `${u.maxRSS} ${u.userCPUTime + u.systemCPUTime}\n`);
  });
}
