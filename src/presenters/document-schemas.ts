/** A document's fields (presenters/document.presenter.ts), for the Document and UploadResult shapes. */
import { DOCUMENT_STATUSES } from '../domain/values';
import { arrayOf, dateTime, enumOf, int, nullable, obj, str, uuid } from './schema-builders';

export const documentFields = {
  id: uuid,
  projectId: uuid,
  name: str,
  mimeType: str,
  size: int,
  sha256: str,
  status: enumOf(...DOCUMENT_STATUSES),
  progress: obj({ pagesDone: int, pagesTotal: int }),
  pageCount: int,
  chunkCount: int,
  error: nullable(str),
  language: { type: ['string', 'null'], description: 'detected (or stated) language code, null until analysed' },
  embeddings: {
    ...nullable(obj({ model: str, chunksEmbedded: int, chunksTotal: int })),
    description: "chunks with a vector of the project's current embedding model; null without an embedding source",
  },
  format: {
    ...nullable(str),
    description:
      'the format detected from the content: pdf, docx, xlsx, ods, csv, tsv, pptx, odp, odt, epub, rtf, eml, mbox, msg, png, jpeg, tiff, webp, gif, markdown, html, text (ole2 until an Office 97–2003 or Outlook file is read); null for an unsupported file',
  },
  extraction: {
    ...nullable(
      obj({
        method: { ...str, description: 'text (every page from the file itself), ocr (every page recognised) or mixed' },
        ocrPages: int,
        ocrConfidence: {
          ...nullable({ type: 'number' }),
          description: 'mean OCR word confidence (0–100) over the OCR pages; null without any',
        },
        pages: {
          ...arrayOf(
            obj({
              from: int,
              to: int,
              method: { ...str, description: 'text or ocr' },
              confidence: { ...nullable({ type: 'number' }), description: 'OCR pages: mean word confidence, 0–100' },
            }),
          ),
          description: "runs of pages: consecutive pages read from the file's own text form one run; each OCR page is a run of its own",
        },
      }),
    ),
    description: "how the pages' text was obtained; null until the document is read",
  },
  uploadedBy: nullable(uuid),
  createdAt: dateTime,
  updatedAt: dateTime,
  originalUrl: { ...str, description: 'Where the stored original is served (GET, `use` tier; `Range` supported)' },
};

/** GET /documents/:id/text: a converted document's text, whole pages (the reader view). */
export const documentText = {
  ...obj({
    documentId: uuid,
    documentName: str,
    pageCount: int,
    pages: arrayOf(
      obj({
        pageNumber: int,
        text: { ...str, description: "The page's converted text (chunk locations' offsets point into it)" },
        sections: arrayOf(obj({ offset: int, title: str, level: nullable(int) })),
      }),
    ),
    nextPage: { ...nullable(int), description: 'The first page not in this answer (ask again with `from`); null at the end' },
  }),
  description: "A converted document's text, whole pages from `from` up to 200,000 characters (the reader view)",
};
