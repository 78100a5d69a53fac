/** The media endpoints: an upload (created, then completed after the PUT), an import from a URL, a video by id. */
import type { RequestOptions } from '../client.js';
import type { CreateImportRequest, CreateUploadRequest, CreateUploadResponse, Media } from '../wire-types.js';
import { readRecord, type Requester } from './resource-base.js';

export class MediaResource {
  constructor(private readonly api: Requester) {}

  createUpload(body: CreateUploadRequest, o: RequestOptions = {}): Promise<CreateUploadResponse> {
    return this.api.request('POST', '/media/uploads', { action: 'upload a video', ...o, body });
  }

  completeUpload(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return this.api.request('POST', `/media/${encodeURIComponent(mediaId)}/complete`, { action: 'finish an upload', ...o });
  }

  createImport(body: CreateImportRequest, o: RequestOptions = {}): Promise<Media> {
    return this.api.request('POST', '/media/imports', { action: 'import a video', ...o, body });
  }

  get(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return readRecord<Media>(this.api, { path: `/media/${encodeURIComponent(mediaId)}`, id: mediaId, what: "video's", o });
  }
}
