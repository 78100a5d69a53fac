/**
 * GET /destinations and GET /destinations/{id}/options: what rarely changes,
 * kept in the key's cache; read from there (at most CACHE_TTL_MS old) only
 * when a call asks (`cached`), and refreshed by every answer of the service.
 */
import { CACHE_ENTRIES, CACHE_TTL_MS, attachMeta, responseMeta, type RequestOptions } from '../client.js';
import type { Destination, DestinationOptions } from '../../contract/wire-types.js';
import { remember, type MemoryOf, type Requester } from './resource-base.js';

export class DestinationsResource {
  constructor(
    private readonly api: Requester,
    private readonly memory: MemoryOf,
  ) {}

  async list(o: RequestOptions = {}): Promise<Destination[]> {
    if (o.cached) {
      const hit = await this.memory()?.get<Destination[]>(CACHE_ENTRIES.destinations, CACHE_TTL_MS);
      if (hit && Array.isArray(hit.value) && hit.value.every((d) => typeof d?.id === 'string')) return attachMeta(hit.value, { status: 200, replayed: false, cachedAt: hit.at });
    }
    const body = await this.api.request<unknown>('GET', '/destinations', o);
    const data = Array.isArray(body) ? body : (body as { data?: unknown } | undefined)?.data;
    const list = Array.isArray(data) ? (data as Destination[]) : [];
    await remember(this.memory, CACHE_ENTRIES.destinations, list);
    return list;
  }

  async options(destinationId: string, o: RequestOptions = {}): Promise<DestinationOptions> {
    if (o.cached) {
      const hit = await this.memory()?.get<DestinationOptions>(CACHE_ENTRIES.options(destinationId), CACHE_TTL_MS);
      if (hit && hit.value && typeof hit.value === 'object' && Array.isArray(hit.value.options) && hit.value.options.every((o) => typeof o?.key === 'string')) {
        return attachMeta(hit.value, { status: 200, replayed: false, cachedAt: hit.at });
      }
    }
    const body = await this.api.request<DestinationOptions>('GET', `/destinations/${encodeURIComponent(destinationId)}/options`, o);
    const options = { ...body, options: Array.isArray(body?.options) ? body.options : [] };
    await remember(this.memory, CACHE_ENTRIES.options(destinationId), options);
    return attachMeta(options, responseMeta(body));
  }
}
