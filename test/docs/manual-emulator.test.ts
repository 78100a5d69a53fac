/** The manual's test (manual.test.ts) for docs/emulator.md, in a lane of its own: it runs longest. */
import { describeManual } from './manual-lanes.js';

describeManual('docs/emulator.md');
