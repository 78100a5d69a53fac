// Calls `then` once each stream has handed everything written to it to the system (or has closed
// or failed). bin/vidpub.js exits through it: a pipe whose reader is slower than vidpub
// (`vidpub batch … | ./slow-script`) holds at most its buffer, and what Node still queues would be
// lost by process.exit, so it is waited for, as a program blocked on a full pipe waits.
//
// A write of nothing, with a callback: that callback comes once every earlier write is done.
// Not 'drain': a stream emits it only after a write that went over its high-water mark, so a short
// tail queued behind a full pipe would never bring it, and the process would end on its own with
// exit code 0 instead of the command's.
'use strict';
/* global module */

/**
 * @param {import('node:stream').Writable[]} streams
 * @param {() => void} then
 */
function whenWritten(streams, then) {
  const pending = streams.filter((s) => !s.destroyed && s.writableLength > 0);
  let left = pending.length;
  if (left === 0) return then();
  for (const s of pending) {
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      left -= 1;
      if (left === 0) then();
    };
    s.write('', done);
    s.once('close', done);
  }
}

module.exports = { whenWritten };
