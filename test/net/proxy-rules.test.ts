/**
 * The proxy rules (proxy-rules.ts, the table of docs/networks-and-credentials.md)
 * run against vidpub's own reading of the variables, and the cases of curl's
 * and Go's suites with vidpub's answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bypassed, checkProxyVariables, proxyFor } from '../../src/api/net/proxy.js';
import { UsageError } from '../../src/errors.js';
import { CURL_CASES, GO_CASES, GO_PROXY_URLS, RULES, rulesTable, type SuiteCase } from './proxy-rules.js';

/** What vidpub makes of `env` for `url`: the variable it goes through (null: straight), the warnings, or the refusal. */
function reading(url: string, env: Record<string, string>): { via?: string | null; warns: string[]; refused?: string } {
  const warns: string[] = [];
  try {
    checkProxyVariables(env, (line) => warns.push(line));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return { warns, refused: err.message };
  }
  return { via: proxyFor(new URL(url), env)?.source ?? null, warns };
}

const ruleKeys = new Set(RULES.filter((r) => r.departure).map((r) => r.key));

describe('the proxy rules, as the docs state them', () => {
  for (const rule of RULES) {
    it.each(rule.cases.map((c) => [JSON.stringify(c.env), c.url, c] as const))(`${rule.key}: %s, %s`, (_e, _u, c) => {
      const r = reading(c.url, c.env);
      if (c.refused) {
        expect(r.refused).toMatch(c.refused);
        return;
      }
      expect(r.refused).toBeUndefined();
      expect(r.via).toBe(c.via);
      const warned = r.warns.map((w) => /the entry "(.*?)" is ignored/.exec(w)?.[1]);
      expect(warned).toEqual(c.warns ?? []);
    });
  }

  it('docs/networks-and-credentials.md holds the table made from them', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'networks-and-credentials.md'), 'utf8');
    expect(doc).toContain(rulesTable());
  });

  it('a warning names the variable, the entry and what to do', () => {
    const warns: string[] = [];
    checkProxyVariables({ HTTPS_PROXY: 'http://p:1', no_proxy: 'good.test, 10.0.0.0/33' }, (l) => warns.push(l));
    expect(warns).toEqual([
      'no_proxy: the entry "10.0.0.0/33" is ignored: the prefix length of an IPv4 range is a number from 1 to 32. Fix it in no_proxy (hosts, .domains, addresses, CIDR ranges, comma-separated).',
    ]);
  });

  it('a URL with a user and password pasted into NO_PROXY: warned about, the password never shown', () => {
    const warns: string[] = [];
    checkProxyVariables({ HTTPS_PROXY: 'http://p:1', NO_PROXY: 'http://me:hunter22@corp.example' }, (l) => warns.push(l));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatch(/^NO_PROXY: the entry "http:\/\/\[redacted\]@corp\.example" is ignored: /);
    expect(warns.join('')).not.toContain('hunter22');
  });

  it('a control character in an entry is not passed to the terminal', () => {
    const warns: string[] = [];
    checkProxyVariables({ HTTPS_PROXY: 'http://p:1', NO_PROXY: 'a\u001b[2Jb' }, (l) => warns.push(l));
    expect(warns).toHaveLength(1);
    expect(warns[0]).not.toContain('\u001b');
  });
});

function suite(name: string, cases: SuiteCase[]) {
  describe(`${name}'s cases`, () => {
    it.each(cases.map((c) => [c.url, c.noProxy, c] as const))('%s with NO_PROXY=%j', (_u, _n, c) => {
      const vidpub = c.differs ? !c.straight : c.straight;
      expect(bypassed(new URL(c.url), c.noProxy)).toBe(vidpub);
      if (c.differs && 'key' in c.differs) expect(ruleKeys.has(c.differs.key)).toBe(true);
    });
  });
}
suite('curl (tests/unit/unit1614.c)', CURL_CASES);
suite('Go (x/net/http/httpproxy)', GO_CASES);

describe("Go's proxy URL cases", () => {
  it.each(GO_PROXY_URLS.map((c) => [JSON.stringify(c.env), c.url, c] as const))('%s for %s', (_e, url, c) => {
    const r = reading(url, c.env);
    if (c.refused) expect(r.refused).toMatch(c.refused);
    else expect(proxyFor(new URL(url), c.env)?.url.href ?? null).toBe(c.proxy);
  });
});
