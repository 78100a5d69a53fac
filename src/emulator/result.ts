/** What every service operation returns: an HTTP-shaped result, errors included. */
export interface Result {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown, status = 200): Result => ({ status, body });
