/**
 * A merged summary (./merge.ts) as JUnit XML, the test report CI systems render (GitHub's
 * test reporters, GitLab, Jenkins): one testsuite per shard, one testcase per item; a failed
 * item is a <failure>, a refused or pending one <skipped>. It validates against the JUnit
 * schema of Jenkins' xUnit plugin (test/fixtures/junit/junit-10.xsd).
 */
import { sanitize } from '../../errors.js';
import type { MergedItem, MergedReport } from './merge.js';

/** Text for an attribute or an element: sanitized (no controls), the five XML specials escaped, a lone surrogate replaced. */
function xml(text: string): string {
  return sanitize(text)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attrs = (pairs: Record<string, string | number>) => Object.entries(pairs).map(([k, v]) => ` ${k}="${xml(String(v))}"`).join('');

/** What became of the item, on one line: "posted: post_12 (published); youtube published". */
export function itemLine(it: MergedItem): string {
  const dests = it.destinations.map((d) => `${d.destination_id} ${d.status}${d.failure ? ` (${d.failure})` : ''}`).join(', ');
  const ids = [it.post_id ?? it.media_id, it.status].filter(Boolean).join(' ');
  return [`${it.result}${ids ? `: ${ids}` : ''}`, dests, it.error].filter(Boolean).join('; ');
}

function testcase(it: MergedItem): string[] {
  const head = `    <testcase${attrs({ name: `item ${it.item}`, classname: `vidpub.batch.${it.shard ? `shard-${it.shard.replace('/', '-of-')}` : 'manifest'}`, time: 0 })}>`;
  const out = [head];
  const line = itemLine(it);
  if (it.result === 'failed') out.push(`      <failure${attrs({ type: it.status || 'failed', message: it.error ?? line })}>${xml(line)}</failure>`);
  if (it.result === 'refused' || it.result === 'pending') out.push(`      <skipped${attrs({ message: it.result === 'pending' ? 'pending: the run was stopped before this item ended' : `refused: ${it.error ?? it.status}` })}/>`);
  out.push(`      <system-out>${xml(`${line} (id ${it.id}, from ${it.file})`)}</system-out>`, '    </testcase>');
  return out;
}

/** The JUnit XML document of `m`. */
export function junitXml(m: MergedReport): string {
  const byShard = new Map<string, MergedItem[]>();
  for (const it of m.items) byShard.set(it.shard ?? '', [...(byShard.get(it.shard ?? '') ?? []), it]);
  const count = (items: MergedItem[], ...results: string[]) => items.filter((it) => results.includes(it.result)).length;
  const suites = [...byShard]
    .sort(([a], [b]) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0))
    .flatMap(([shard, items]) => [
      `  <testsuite${attrs({ name: shard ? `vidpub batch shard ${shard}` : 'vidpub batch', tests: items.length, failures: count(items, 'failed'), errors: 0, skipped: count(items, 'refused', 'pending') })}>`,
      `    <properties>`,
      `      <property${attrs({ name: 'manifest', value: m.manifest.id })}/>`,
      `      <property${attrs({ name: 'shard', value: shard || 'all' })}/>`,
      `    </properties>`,
      ...items.flatMap(testcase),
      '  </testsuite>',
    ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: 'vidpub batch', tests: m.total, failures: m.counts.failed, errors: 0 })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
