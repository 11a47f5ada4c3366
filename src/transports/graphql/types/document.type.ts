import { IsBase64, IsOptional, IsString, MaxLength, MinLength, ArrayMinSize, ArrayMaxSize, ValidateNested, IsArray } from 'class-validator';
import { Type } from 'class-transformer';
import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { MAX_FILES_PER_UPLOAD } from '../../../services/documents.service';
import { Page, Timestamp } from './common.type';
import { DocumentStatusEnum } from './enums';

@ObjectType('DocumentProgressCounts')
export class ProgressCountsType {
  @Field(() => Int) pagesDone!: number;
  @Field(() => Int) pagesTotal!: number;
}

/** How many of a document's chunks have a vector of the project's current embedding model. */
@ObjectType('DocumentEmbeddings')
export class DocumentEmbeddingsType {
  @Field({ description: 'The embedding model (`<provider_slug>/<model>`, or the bare EMBEDDING_MODEL)' }) model!: string;
  @Field(() => Int) chunksEmbedded!: number;
  @Field(() => Int) chunksTotal!: number;
}

/** A run of pages read the same way: consecutive pages from the file's own text, or one OCR page. */
@ObjectType('DocumentPageRun')
export class DocumentPageRunType {
  @Field(() => Int) from!: number;
  @Field(() => Int) to!: number;
  @Field({ description: 'text or ocr' }) method!: string;
  @Field(() => Float, { nullable: true, description: 'OCR pages: mean word confidence, 0–100' }) confidence!: number | null;
}

/** How a document's pages were read. */
@ObjectType('DocumentExtraction')
export class DocumentExtractionType {
  @Field({ description: 'text (every page from the file itself), ocr (every page recognised) or mixed' }) method!: string;
  @Field(() => Int) ocrPages!: number;
  @Field(() => Float, { nullable: true, description: 'Mean OCR word confidence (0–100) over the OCR pages; null without any' })
  ocrConfidence!: number | null;
  @Field(() => [DocumentPageRunType]) pages!: DocumentPageRunType[];
}

/** Where a document stands in ingestion: what a document and each of its progress events carry. */
@ObjectType()
abstract class DocumentStateFields {
  @Field(() => ID) projectId!: string;
  @Field(() => DocumentStatusEnum) status!: string;
  @Field(() => ProgressCountsType) progress!: ProgressCountsType;
  @Field(() => Int) pageCount!: number;
  @Field(() => Int) chunkCount!: number;
  @Field(() => String, { nullable: true }) error!: string | null;
}

/** A document of a project (the stored file never goes on the wire). */
@ObjectType('Document')
export class DocumentType extends DocumentStateFields {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() mimeType!: string;
  @Field(() => Int) size!: number;
  @Field() sha256!: string;
  @Field(() => DocumentEmbeddingsType, { nullable: true, description: 'Embedding progress; null when the project has no embedding source' })
  embeddings!: DocumentEmbeddingsType | null;
  @Field(() => String, { nullable: true, description: 'ISO 639-1 code: stated on upload, else detected at ingestion; null while unknown' })
  language!: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'The format detected from the content (pdf, docx, xlsx, pptx, odt, epub, rtf, eml, msg, png, …); null for an unsupported file',
  })
  format!: string | null;
  @Field(() => DocumentExtractionType, { nullable: true, description: "How the pages' text was obtained; null until the document is read" })
  extraction!: DocumentExtractionType | null;
  @Field(() => ID, { nullable: true }) uploadedBy!: string | null;
  @Timestamp() createdAt!: string;
  @Timestamp() updatedAt!: string;
  @Field({ description: 'Where the stored original is served (GET, `use` tier; `Range` supported)' }) originalUrl!: string;
  @Field(() => Boolean, { nullable: true, description: 'In upload answers: the same content was already in the project' })
  duplicate?: boolean;
}

export const DocumentPage = Page(DocumentType, 'Document');

/** One ingestion progress event (documentProgress subscription). */
@ObjectType('DocumentProgress')
export class DocumentProgressType extends DocumentStateFields {
  @Field(() => ID) documentId!: string;
  @Field(() => Int) pagesDone!: number;
  @Field(() => Int) pagesTotal!: number;
}

/** A box a chunk's text is drawn in, as fractions of its page's width and height from the top-left corner. */
@ObjectType('ChunkBox')
export class ChunkBoxType {
  @Field(() => Float) x!: number;
  @Field(() => Float) y!: number;
  @Field(() => Float) w!: number;
  @Field(() => Float) h!: number;
}

/** Where a chunk lies on one page: characters [start, end) of the page's converted text, and its boxes. */
@ObjectType('ChunkLocation')
export class ChunkLocationType {
  @Field(() => Int) page!: number;
  @Field(() => Int) start!: number;
  @Field(() => Int) end!: number;
  @Field({ description: "The part of the chunk's text on this page" }) text!: string;
  @Field(() => [ChunkBoxType], { nullable: true, description: 'PDF and OCR pages only' }) boxes?: ChunkBoxType[];
}

/** GET /chat/chunks/:chunkId/source: a citation's chunk with its surrounding paragraph. */
@ObjectType('ChunkSource')
export class ChunkSourceType {
  @Field(() => ID) documentId!: string;
  @Field() documentName!: string;
  @Field(() => Int) pageNumber!: number;
  @Field(() => ID) chunkId!: string;
  @Field() snippet!: string;
  @Field() context!: string;
  @Field(() => [ChunkLocationType], {
    nullable: true,
    description: 'Where the chunk lies in the original, page by page; null for a document not yet analysed for it (use snippet)',
  })
  locations!: ChunkLocationType[] | null;
}

/** A heading of a page of converted text, starting at character `offset`. */
@ObjectType('TextSection')
export class TextSectionType {
  @Field(() => Int) offset!: number;
  @Field() title!: string;
  @Field(() => Int, { nullable: true }) level!: number | null;
}

/** One page of a document's converted text. */
@ObjectType('TextPage')
export class TextPageType {
  @Field(() => Int) pageNumber!: number;
  @Field({ description: "The page's converted text (chunk locations' offsets point into it)" }) text!: string;
  @Field(() => [TextSectionType]) sections!: TextSectionType[];
}

/** GET /documents/:id/text: whole pages of a converted document's text, from `from` up to 200,000 characters. */
@ObjectType('DocumentText')
export class DocumentTextType {
  @Field(() => ID) documentId!: string;
  @Field() documentName!: string;
  @Field(() => Int) pageCount!: number;
  @Field(() => [TextPageType]) pages!: TextPageType[];
  @Field(() => Int, { nullable: true, description: 'The first page not in this answer (ask again with `from`); null at the end' })
  nextPage!: number | null;
}

/**
 * A file for uploadDocuments: JSON cannot carry bytes, so the content travels base64-encoded
 * (REST's multipart upload is the better fit for many or large files).
 */
@InputType()
export class UploadFileGraphqlInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  mimeType?: string;

  @Field({ description: 'The file content, base64-encoded' })
  @IsString()
  @IsBase64()
  contentBase64!: string;
}

@InputType()
export class UploadDocumentsInput {
  @Field(() => String, { nullable: true, description: 'The documents\' language (ISO 639-1, e.g. "de"); detected when omitted' })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  language?: string;

  @Field(() => [UploadFileGraphqlInput])
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_FILES_PER_UPLOAD)
  @ValidateNested({ each: true })
  @Type(() => UploadFileGraphqlInput)
  files!: UploadFileGraphqlInput[];
}
