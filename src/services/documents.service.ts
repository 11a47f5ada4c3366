import { BaseService } from './context';

/** TODO(owner of this area): implement. */
export class DocumentsService extends BaseService {}
