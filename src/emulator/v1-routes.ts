/**
 * The /v1 endpoints of the contract, once: Fastify registers them
 * (server.ts) and the fast path in front of it looks them up (fast-v1.ts),
 * so an endpoint added here is served both ways.
 */
import type { CallContext, EmulatorService, RequestBody, ServiceResult } from './service.js';

export interface V1Route {
  method: 'GET' | 'POST';
  /** Below /v1; ":id" stands for one path segment. */
  path: string;
  /** `id`: the ":id" segment ('' without one); `body`: a POST's body (GETs have none). */
  op(service: EmulatorService['direct'], ctx: CallContext, id: string, body: RequestBody): ServiceResult | Promise<ServiceResult>;
}

export const V1_ROUTES: readonly V1Route[] = [
  { method: 'GET', path: '/me', op: (s, ctx) => s.getMe(ctx) },
  { method: 'GET', path: '/destinations', op: (s, ctx) => s.listDestinations(ctx) },
  { method: 'GET', path: '/destinations/:id/options', op: (s, ctx, id) => s.getDestinationOptions(ctx, id) },
  { method: 'POST', path: '/media/uploads', op: (s, ctx, _id, body) => s.createUpload(ctx, body) },
  { method: 'POST', path: '/media/imports', op: (s, ctx, _id, body) => s.createImport(ctx, body) },
  { method: 'POST', path: '/media/:id/complete', op: (s, ctx, id, body) => s.completeUpload(ctx, id, body) },
  { method: 'GET', path: '/media/:id', op: (s, ctx, id) => s.getMedia(ctx, id) },
  { method: 'POST', path: '/posts', op: (s, ctx, _id, body) => s.createPost(ctx, body) },
  { method: 'POST', path: '/posts/:id/publish', op: (s, ctx, id, body) => s.publishPost(ctx, id, body) },
  { method: 'GET', path: '/posts/:id', op: (s, ctx, id) => s.getPost(ctx, id) },
];
