/** Environment variables that say yes or no (VIDPUB_NO_CACHE, VIDPUB_DEBUG, ...). */

type Env = Readonly<Record<string, string | undefined>>;

/** A yes/no value: set, and not "", "0" or "false" (any case). */
export function truthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The yes/no environment variable `name` (see truthy). */
export function envFlag(env: Env, name: string): boolean {
  return truthy(env[name]);
}
