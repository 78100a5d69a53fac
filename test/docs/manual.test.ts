/**
 * The manual is tested, one test per page: README.md and every page of docs/
 * (the generated command reference included, whose blocks are all marked
 * `skip`: help-examples.test.ts runs its examples). Each page's marked shell
 * blocks run in order against the emulator on an ephemeral port, reset to its
 * fixture before the page, with a throwaway HOME and working directory of the
 * page's own; each output a page shows must match what ran (after normalising
 * ids, times, ports, temp paths and durations). A page that needs a login or
 * a file says so in a hidden `setup` marker. See test/docs/doctest.ts for the
 * marking convention:
 *
 *   <!-- doctest: run -->          a shell block that runs and must exit 0
 *   <!-- doctest: output -->       the output of the run block before it
 *   <!-- doctest: transcript -->   `$ command` lines with their output
 *                                  (`transcript tty`: on a pseudo-terminal, 100 columns)
 *   <!-- doctest: skip REASON -->  cannot run here; counted and named
 *   <!-- doctest: setup ... -->    hidden shell setup
 *
 * The longest pages run in lanes of their own (manual-emulator.test.ts,
 * manual-publishing.test.ts; see manual-lanes.ts), this file every other page.
 *
 * Needs the build (dist/), made by `npm test`. Prints "PAGE: N blocks run,
 * M outputs match, K skipped" to stderr.
 */
import { describeManual } from './manual-lanes.js';

describeManual();
