import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Resolver, Root, Subscription } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import type { SubscribeResolverData } from 'type-graphql';
import { PayloadTooLargeError } from '../../../errors';
import {
  type GraphDocumentProgressDto,
  presentChunkSource,
  presentDocument,
  presentDocumentProgress,
  presentDocumentText,
  presentUploadResult,
} from '../../../presenters/document.presenter';
import { ListDocumentsInput } from '../../../services/documents.inputs';
import type { DocumentProgress } from '../../../services/documents.service';
import { actorOf, GraphqlContext } from '../context';
import { Caller, FilterArg, ValidArg, ValidArgs } from '../params';
import { abortableStream } from '../subscriptions';
import { DeleteResultType, PageArgs, pageOf } from '../types/common.type';
import {
  ChunkSourceType,
  DocumentPage,
  DocumentProgressType,
  DocumentTextType,
  DocumentType,
  UploadDocumentsInput,
} from '../types/document.type';
import { ProjectType } from '../types/project.type';
import type { PageOf } from '../types/common.type';
import type { GraphProjectDto } from '../../../presenters/project.presenter';
import type { ChunkSourceDto, DeleteResultDto, DocumentDto, DocumentTextDto, UploadResultDto } from '../../../presenters/dto.generated';

@Resolver(() => DocumentType)
export class DocumentResolver {
  @SignedInQuery(() => DocumentPage, { description: 'GET /projects/:projectId/documents (use tier), newest first' })
  async documents(
    @Arg('projectId', () => ID) projectId: string,
    @FilterArg(ListDocumentsInput) filter: ListDocumentsInput,
    @ValidArgs(PageArgs) page: PageArgs,
    @Caller() { actor, services }: Caller,
  ): Promise<PageOf<DocumentDto>> {
    return pageOf((await services.documents.list(actor, projectId, filter)).map(presentDocument), page);
  }

  @SignedInQuery(() => DocumentType, { description: 'GET /documents/:id (use tier): status, progress, counts, error' })
  async document(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<DocumentDto> {
    return presentDocument(await services.documents.get(actor, id));
  }

  @SignedInQuery(() => ChunkSourceType, { description: "GET /chat/chunks/:chunkId/source (use tier on the chunk's project)" })
  async chunkSource(@Arg('chunkId', () => ID) chunkId: string, @Caller() { actor, services }: Caller): Promise<ChunkSourceDto> {
    return presentChunkSource(await services.documents.chunkSource(actor, chunkId));
  }

  @SignedInQuery(() => DocumentTextType, {
    description: "GET /documents/:id/text (use tier): a converted (not PDF or image) document's text, whole pages from `from` (default 1)",
  })
  async documentText(
    @Arg('id', () => ID) id: string,
    @Arg('from', () => Int, { nullable: true }) from: number | null,
    @Caller() { actor, services }: Caller,
  ): Promise<DocumentTextDto> {
    return presentDocumentText(await services.documentText.text(actor, id, from ?? 1));
  }

  @SignedInMutation(() => [DocumentType], {
    description: 'POST /projects/:projectId/documents (edit tier), files base64-encoded; ingestion runs in the background',
  })
  async uploadDocuments(
    @Arg('projectId', () => ID) projectId: string,
    @ValidArg('input', UploadDocumentsInput) input: UploadDocumentsInput,
    @Caller() { actor, services }: Caller,
  ): Promise<UploadResultDto[]> {
    const { files, language } = input;
    const maxBytes = services.ctx.config.maxUploadMb * 1024 * 1024;
    const decoded = files.map((f) => ({ name: f.name, mimeType: f.mimeType, content: Buffer.from(f.contentBase64, 'base64') }));
    // the same per-file limit as REST's multipart upload
    if (decoded.some((f) => f.content.length > maxBytes))
      throw new PayloadTooLargeError(`Each file may be at most ${services.ctx.config.maxUploadMb} MB`);
    return (await services.documents.upload(actor, projectId, decoded, { language: language ?? undefined })).map(presentUploadResult);
  }

  @SignedInMutation(() => DeleteResultType, { description: 'DELETE /documents/:id (edit tier)' })
  async deleteDocument(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
    return { success: true, id: (await services.documents.delete(actor, id)).id };
  }

  @SignedInMutation(() => DocumentType, { description: 'POST /documents/:id/reindex (edit tier)' })
  async reindexDocument(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<DocumentDto> {
    return presentDocument(await services.documents.reindex(actor, id));
  }

  @Authorized()
  @Subscription(() => DocumentProgressType, {
    description:
      "A document's ingestion progress (use tier): the current state, then every change, ending after ready or failed. Ends with an error (extensions.code unauthorized or forbidden) when the caller is deactivated or loses use, or the document or project is deleted",
    subscribe: async ({ args, context }: SubscribeResolverData<unknown, { documentId: string }, GraphqlContext>) =>
      abortableStream(() => context.services.progress.watch(actorOf(context), args.documentId)),
  })
  documentProgress(@Root() p: DocumentProgress | Error, @Arg('documentId', () => ID) _documentId: string): GraphDocumentProgressDto {
    // access was lost: the stream's last value is the error to report
    if (p instanceof Error) throw p;
    const event: GraphDocumentProgressDto = { ...presentDocumentProgress(p), pagesDone: p.pagesDone, pagesTotal: p.pagesTotal };
    return event;
  }

  @FieldResolver(() => ProjectType, { description: "The document's project" })
  async project(@Root() d: DocumentType, @Ctx() ctx: GraphqlContext): Promise<GraphProjectDto> {
    return ctx.loaders.projects.load(d.projectId);
  }
}
