/**
 * --events: stdout becomes JSON lines, one event (src/events/) per line as it happens, and the last line is
 * {"type":"result","result":DOC} holding the document --json would have printed (printData). Refused with
 * --json or --jq, which print one document. A reader that goes away stops no work: the emitter swallows a
 * failed write, as the command's own output does.
 */
import { UsageError, neutraliseBidi } from '../../errors.js';
import { createEmitter } from '../../events/event.js';
import type { Invocation } from '../run/command.js';

/** --events of a command (`on`): checks it against --json, and gives the command's Session an emitter printing each event. */
export function startEvents(inv: Invocation, on: boolean): void {
  if (!on) return;
  if (inv.globals.json || inv.globals.jq !== undefined) {
    throw new UsageError(`--events cannot be used with ${inv.globals.jq !== undefined ? '--jq' : '--json'}: --events prints JSON lines, the last of them the --json document`, {
      hint: 'Drop --json: the last line of --events is {"type":"result","result":...}, what --json prints.',
    });
  }
  inv.session.events = createEmitter({ profile: inv.globals.profile, clock: inv.ctx.clock, sink: (e) => inv.print(neutraliseBidi(JSON.stringify(e), 'json')) });
}

/** The last line of --events: the command's --json document. */
export function resultLine(doc: unknown): string {
  return neutraliseBidi(JSON.stringify({ type: 'result', result: doc ?? null }), 'json');
}
