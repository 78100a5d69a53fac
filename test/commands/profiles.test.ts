import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../support/cli.js';

/** A config dir with the given profiles in config.json. */
function configWith(profiles: Record<string, Record<string, string>>): string {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return dir;
}

describe('vidpub profiles at a terminal', () => {
  test('the profile in use is marked "*" and the other rows keep the column aligned', async () => {
    const dir = configWith({
      ci: { api_key: 'vp_live_demo_ro_F4n8Vb2Rz6Wq1Ye5', base_url: 'http://127.0.0.1:4010/v1', workspace: 'Demo', logged_in_at: '2026-11-20T23:00:37.420Z' },
      default: { api_key: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', base_url: 'http://127.0.0.1:4010/v1', workspace: 'Demo', logged_in_at: '2026-11-20T23:00:38.420Z' },
    });
    const r = await runCli(['profiles', '--profile', 'ci'], { tty: true, env: { VIDPUB_CONFIG_DIR: dir, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      'PROFILE    BASE URL                  WORKSPACE  KEY            LAST LOGIN                STORAGE',
      '* ci       http://127.0.0.1:4010/v1  Demo       vp_live_…1Ye5  2026-11-20T23:00:37.420Z  file',
      '  default  http://127.0.0.1:4010/v1  Demo       vp_live_…s3Td  2026-11-20T23:00:38.420Z  file',
      '',
    ]);
  });
});
