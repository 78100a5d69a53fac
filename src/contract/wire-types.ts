/**
 * Wire types of the Video Publishing Service REST API (v1), shared by the
 * client and the emulator. Shapes follow ../shared/spec/gaps.md (copied into
 * docs/api-notes.md). The client must tolerate a real service that differs:
 * every field a reader depends on is optional-checked where the contract says
 * "not shown", and unknown fields are ignored.
 */

export const API_VERSION_PREFIX = '/v1';
/**
 * The `Server` header of every answer of the emulator (`vidpub emulator`), so a
 * client can tell it from the real service by the answer it already has
 * (docs/api-notes.md). The real service names itself otherwise, or not at all.
 */
export const EMULATOR_SERVER_HEADER = 'vidpub-emulator';

export const SUPPORTED_CONTENT_TYPES = [
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/x-msvideo',
  'video/mp2t',
] as const;
export type SupportedContentType = (typeof SUPPORTED_CONTENT_TYPES)[number];

/** File extension (lower case, no dot) to content type. */
export const EXTENSION_CONTENT_TYPES: Readonly<Record<string, SupportedContentType>> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  mts: 'video/mp2t',
  m2ts: 'video/mp2t',
};

export const MAX_IMPORTS_IN_FLIGHT = 5;
export const IMPORTS_IN_FLIGHT_RETRY_AFTER_SEC = 30;
export const IDEMPOTENCY_WINDOW_SEC = 24 * 3600;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

// ---------------------------------------------------------------- errors

export type ErrorType =
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'api_error';

export type ErrorCode =
  | 'missing_field'
  | 'invalid_field'
  | 'unsupported_content_type'
  | 'file_too_large'
  | 'invalid_url'
  | 'invalid_publish_at'
  | 'unknown_option'
  | 'invalid_option_value'
  | 'idempotency_key_reused'
  | 'invalid_json'
  | 'missing_key'
  | 'invalid_key'
  | 'revoked_key'
  | 'read_only_key'
  | 'plan_without_api_access'
  | 'not_found'
  | 'media_not_ready'
  | 'upload_incomplete'
  | 'post_not_publishable'
  | 'post_has_blocking_issues'
  | 'idempotency_key_in_use'
  | 'destination_inactive'
  | 'daily_post_limit'
  | 'imports_in_flight'
  | 'requests_per_minute'
  | 'upload_link_expired'
  | 'upload_link_invalid'
  | 'upload_link_used'
  | 'authorization_not_allowed'
  | 'content_type_mismatch'
  | 'size_mismatch'
  | 'internal_error';

export interface ApiErrorBody {
  error: {
    type: ErrorType | string;
    code?: ErrorCode | string;
    message: string;
    param?: string;
    /** daily_post_limit only: ISO time of the next midnight UTC. */
    reset_at?: string;
    /** post_has_blocking_issues: the post's issues (those of severity error block). */
    issues?: Issue[];
    /** Refusals of POST /posts/{id}/publish: the post concerned. */
    post_id?: string;
  };
}

// ---------------------------------------------------------------- /me

export type PlanName = 'free' | 'standard' | 'studio';
export type KeyAccess = 'read' | 'read_write';
export type DailyScope = 'account' | 'workspace';

export interface KeyInfo {
  id: string;
  name: string;
  access: KeyAccess;
  prefix: string;
  last4: string;
  created_at: string;
}

export interface Workspace {
  id: string;
  name: string;
}

export interface Plan {
  name: PlanName | string;
}

export interface Usage {
  posts_today: number;
  media_count: number;
  post_count: number;
}

export interface MinuteCounter {
  limit: number;
  used: number;
  remaining: number;
  reset_at: string;
}

export interface Limits {
  requests_per_minute: {
    read: MinuteCounter;
    write: MinuteCounter;
    scope: 'key' | string;
  };
  api_posts_per_day: {
    limit: number;
    used: number;
    remaining: number;
    scope: DailyScope | string;
    reset_at: string;
  };
}

export interface Me {
  key: KeyInfo;
  workspace: Workspace;
  plan: Plan;
  usage: Usage;
  limits: Limits;
}

// ---------------------------------------------------------------- destinations

export type DestinationStatus = 'active' | 'disconnected' | 'expired';

export interface VideoLimits {
  max_duration_sec: number | null;
  max_size_bytes: number | null;
  content_types: string[];
}

export interface Destination {
  id: string;
  platform: string;
  handle: string;
  display_name: string;
  status: DestinationStatus | string;
  video_limits?: VideoLimits;
}

export interface ListResponse<T> {
  data: T[];
}

export type OptionType = 'enum' | 'boolean' | 'string';
export type OptionValue = string | boolean;

export interface DestinationOption {
  key: string;
  label: string;
  type: OptionType | string;
  values: OptionValue[] | null;
  default: OptionValue | null;
  required: boolean;
}

export interface Creator {
  handle: string;
  display_name: string;
  avatar_url: string;
}

export interface DestinationOptions {
  options: DestinationOption[];
  creator?: Creator;
  max_duration_sec?: number;
}

// ---------------------------------------------------------------- media

export type MediaStatus = 'uploading' | 'processing' | 'ready' | 'failed';
export type MediaPhase = 'uploading' | 'downloading' | 'processing';

export interface Media {
  id: string;
  status: MediaStatus | string;
  filename: string;
  content_type: string;
  size_bytes: number | null;
  source: 'upload' | 'import';
  progress?: { phase?: MediaPhase | string; percent?: number };
  error?: { code?: string; message: string };
  duration_sec?: number;
  created_at: string;
}

export interface CreateUploadRequest {
  filename: string;
  size_bytes: number;
  content_type: string;
}

export interface UploadTarget {
  url: string;
  method: 'PUT' | string;
  headers: Record<string, string>;
  expires_at: string;
}

export interface CreateUploadResponse {
  media: Media;
  upload: UploadTarget;
}

export interface CreateImportRequest {
  url: string;
  filename?: string;
}

// ---------------------------------------------------------------- posts

/** `completed` is the project's answer to the gap: every destination terminal. */
export type PostStatus = 'draft' | 'scheduled' | 'publishing' | 'completed';
export type PostDestinationStatus = 'pending' | 'publishing' | 'published' | 'failed' | 'cancelled';
export const TERMINAL_DESTINATION_STATUSES: readonly string[] = ['published', 'failed', 'cancelled'];

/** A post that is over: every destination published, failed or cancelled (or the post says `completed`). It never changes again. */
export function postSettled(post: Pick<Post, 'status' | 'destinations'>): boolean {
  const dests = Array.isArray(post.destinations) ? post.destinations : [];
  if (dests.length > 0 && dests.every((d) => TERMINAL_DESTINATION_STATUSES.includes(String(d.status)))) return true;
  return post.status === 'completed';
}

export interface Notice {
  code: string;
  message: string;
}

export interface Issue {
  severity: 'error' | 'warning' | string;
  code: string;
  message: string;
  destination_id?: string;
  option?: string;
}

export interface PostDestination {
  destination_id: string;
  options: Record<string, OptionValue>;
  status?: PostDestinationStatus | string;
  url?: string | null;
  warning?: Notice | null;
  failure?: Notice | null;
}

export interface Post {
  id: string;
  status: PostStatus | string;
  caption: string;
  media_id: string;
  publish_at: string | null;
  review_url: string;
  issues: Issue[];
  destinations: PostDestination[];
  created_at: string;
}

export interface CreatePostRequest {
  media_id: string;
  caption: string;
  destinations: { destination_id: string; options?: Record<string, OptionValue> }[];
  /** Omit for a draft; `now` or ISO 8601 with offset. */
  publish_at?: string;
}

export interface PublishPostRequest {
  publish_at: string;
}

// ---------------------------------------------------------------- emulator admin

export interface EmulatorKeyInfo {
  key: string;
  workspace: string;
  plan: PlanName;
  /** What the key may do: `none` on a Free-plan workspace (no API access), whatever the key's own access. */
  access: KeyAccess | 'none';
}

export interface EmulatorStartInfo {
  base_url: string;
  admin_url: string;
  keys: EmulatorKeyInfo[];
  /** The origin of the upload links when storage has a listener of its own. */
  storage_url?: string;
  /** With --tls: the file of the CA that signed the emulator's certificates (for --ca-file). */
  ca_file?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  authorization: boolean;
  idempotency_key: string | null;
  replayed: boolean;
  /** Emulator: the request fault applied to this request, if any. */
  fault?: string | null;
}

export type FaultSpec =
  | { method: string; path: string; action: 'reset_after_handling' | 'reset_before_handling'; times?: number }
  | {
    method: string;
    path: string;
    action: 'status';
    status: number;
    times?: number;
    /** Sent as is instead of the JSON error body (e.g. an HTML 502 page). */
    body?: string;
    content_type?: string;
    /** Retry-After seconds; null sends none (default: 1 for 429 and 503). */
    retry_after?: number | null;
  }
  | { method: string; path: string; action: 'delay'; ms: number; times?: number }
  | { media_fail: string }
  | { destination_fail: string };
