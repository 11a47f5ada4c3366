import { IsIn, IsOptional } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { DOCUMENT_STATUSES, DocumentStatus } from '../entities/base';

/** A file as a transport received it (REST multipart part, GraphQL upload). */
export interface UploadFileInput {
  /** The client's file name (any path components are dropped). */
  name: string;
  /** The declared content type, if any; the format is decided from the name and the bytes too. */
  mimeType?: string;
  content: Buffer;
}

/** GET /projects/:projectId/documents query. */
@InputType()
export class ListDocumentsInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsIn(DOCUMENT_STATUSES as unknown as string[])
  status?: DocumentStatus;
}
