/**
 * What a new user found the docs saying two ways, held to one: the exit-code table names a
 * video too long once (checked before sending: exit 2; the service's issues of a saved draft:
 * exit 8), the Action's default key is described as run.mjs makes it in action.yml and in the
 * guide, and the README says what batch writes to a pipe.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The examples column of the exit-code table row for `code`. */
function exitRow(code: number): string {
  const row = read('docs/reliability.md').split('\n').find((l) => l.startsWith(`| ${code} |`));
  expect(row, `row ${code}`).toBeDefined();
  return row!.split(' | ')[2]!;
}

describe('the docs say one thing once', () => {
  it('a video too long is exit 2 (checked before sending), not also one of exit 8\'s examples', () => {
    expect(exitRow(2)).toMatch(/a video longer than a destination takes \(its duration checked before anything is sent\)/);
    expect(exitRow(8)).not.toMatch(/video/);
  });

  it('the Action\'s default Idempotency-Key is described as run.mjs makes it, in action.yml and in the guide', () => {
    const parts = /const parts = \[([^\]]+)\]/.exec(read('scripts/action/run.mjs'))![1]!;
    expect(parts).toMatch(/^env\.GITHUB_REPOSITORY, env\.GITHUB_RUN_ID, env\.GITHUB_JOB, env\.GITHUB_ACTION, source, to$/);
    const words = 'a hash of the repository, the run id, the job, the step, the video and the destinations';
    expect(read('action.yml')).toContain(`Default, ${words}`);
    expect(read('docs/scripts-ci-cron.md')).toContain(`default: ${words}`);
  });

  it('the README says batch writes a JSON line per item to a pipe, and its tour removes the file it wrote', () => {
    const readme = read('README.md');
    expect(readme).toContain('In a pipe, output is tab-separated lines (`batch`: a JSON line per item)');
    expect(readme.indexOf('\nrm post.txt\n')).toBeGreaterThan(readme.lastIndexOf('cat post.txt'));
  });
});
