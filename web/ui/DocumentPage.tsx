import { documentPath, navigate, projectPath, type Route } from '../lib/router';
import { Link } from './common';
import { DocumentViewer } from './DocumentViewer';

type DocumentRoute = Extract<Route, { name: 'document' }>;

/** /projects/:id/documents/:docId?page=N&chunk=…: a document at a page, the cited chunk marked. */
export function DocumentPage({ route }: { route: DocumentRoute }) {
  return (
    <section aria-labelledby="document-title">
      <p>
        <Link to={projectPath(route.projectId)}>Back to the project</Link>
      </p>
      <h1 id="document-title">Document</h1>
      <DocumentViewer
        target={{ documentId: route.documentId, page: route.page ?? 1, chunkId: route.chunkId }}
        onPage={(n) => navigate(documentPath(route.projectId, route.documentId, n, route.chunkId), true)}
      />
    </section>
  );
}
