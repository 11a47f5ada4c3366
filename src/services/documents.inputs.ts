import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { Field, InputType, Int } from 'type-graphql';
import { DOCUMENT_STATUSES, DocumentStatus } from '../entities/base';

/** An upload the transport streamed to a temporary file (hashed on the way); the transport removes it. */
export interface StoredUpload {
  path: string;
  size: number;
  sha256: string;
  /** The file's first bytes (format detection). */
  head: Buffer;
}

/** A file as a transport received it: in memory (GraphQL upload) or streamed to disk (REST multipart). */
export interface UploadFileInput {
  /** The client's file name (any path components are dropped). */
  name: string;
  /** The declared content type, if any; the format is decided from the name and the bytes too. */
  mimeType?: string;
  content?: Buffer;
  stored?: StoredUpload;
}

/** GET /projects/:projectId/documents query. */
@InputType()
export class ListDocumentsInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsIn(DOCUMENT_STATUSES)
  status?: DocumentStatus;
}

/** GET /documents/:id/text query: the first page wanted (default 1). */
@InputType()
export class DocumentTextQuery {
  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  from?: number;
}
