/** The media endpoints: an upload (created, then completed after the PUT), an import from a URL, a video by id. */
import type { RequestOptions } from '../client.js';
import type { CreateImportRequest, CreateUploadRequest, CreateUploadResponse, Media } from '../../contract/wire-types.js';
import { carries } from '../send/service-word.js';
import { readRecord, type Requester } from './resource-base.js';

/** An upload is the service's word only with its video's id and the link to send the file to. */
const UPLOAD_RECORD = carries('media.id', 'upload.url');
/** A video created (import) or completed is the service's word only with its id. */
const MEDIA_RECORD = carries('id');

export class MediaResource {
  constructor(private readonly api: Requester) {}

  createUpload(body: CreateUploadRequest, o: RequestOptions = {}): Promise<CreateUploadResponse> {
    return this.api.request('POST', '/media/uploads', { action: 'upload a video', ...o, body, expect: UPLOAD_RECORD });
  }

  completeUpload(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return this.api.request('POST', `/media/${encodeURIComponent(mediaId)}/complete`, { action: 'finish an upload', ...o, expect: MEDIA_RECORD });
  }

  createImport(body: CreateImportRequest, o: RequestOptions = {}): Promise<Media> {
    return this.api.request('POST', '/media/imports', { action: 'import a video', ...o, body, expect: MEDIA_RECORD });
  }

  get(mediaId: string, o: RequestOptions = {}): Promise<Media> {
    return readRecord<Media>(this.api, { path: `/media/${encodeURIComponent(mediaId)}`, id: mediaId, what: "video's", o });
  }
}
