import { UsageError } from '../../errors.js';
import { printDemoResult, runDemo, type DemoOptions, type DemoResult } from '../demo/demo-run.js';
import { defineCommand } from '../run/command.js';
import { DEFAULT_DEMO_STEP_MS as DEFAULT_STEP_MS } from './index.js';
const MAX_STEP_MS = 600_000;

function stepMs(value: string | undefined, flag: string): number {
  if (value === undefined) return DEFAULT_STEP_MS;
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) > MAX_STEP_MS) throw new UsageError(`${flag} must be a whole number of milliseconds from 0 to ${MAX_STEP_MS}, got "${text}"`);
  return Number(text);
}

export default defineCommand<'demo', DemoOptions, DemoResult>({
  description:
    'Run the whole job against an emulator of the service started in this process, with its demo key (your ' +
    'stored profile is not used): who am I, the destinations, upload of a small sample video with progress, a ' +
    'post to several accounts (the privacy is asked on a terminal, chosen with --option otherwise), the wait ' +
    'until each is published, the final status; then the commands that do the same against the real service.',
  examples: ['vidpub demo', 'vidpub demo --yes --processing-ms 500 --publish-ms 500', 'vidpub demo --no-input --json | jq .post.status'],
  parse(_args, flags) {
    return {
      processingMs: stepMs(flags.processingMs, '--processing-ms'),
      publishMs: stepMs(flags.publishMs, '--publish-ms'),
      yes: flags.yes,
    };
  },
  // The emulator (fastify) and the steps' commands are imported by runDemo when it runs.
  run: runDemo,
  print: printDemoResult,
});
