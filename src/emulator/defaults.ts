/**
 * The emulator's defaults, apart from its server so the CLI can show them in
 * `vidpub emulator --help` without loading Fastify.
 */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
/** Each background step: an import's download, a video's processing. */
export const DEFAULT_PROCESSING_MS = 3000;
/** Each destination of a post, one after another. */
export const DEFAULT_PUBLISH_MS = 2000;
export const DEFAULT_UPLOAD_LINK_TTL_SEC = 3600;
