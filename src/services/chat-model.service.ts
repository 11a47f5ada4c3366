import type { Actor } from '../access/actor';
import { BaseService, ServiceContext } from '../db/service-context';
import type { ProvidersService } from './providers.service';

export interface ChatModel {
  model: { label: string; source: 'provider' | 'environment' } | null;
}

/** Which model chat answers with by default: what the home page tells people on first run. */
export class ChatModelService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly providers: ProvidersService,
  ) {
    super(ctx);
  }

  /**
   * GET /providers/chat-model (any signed-in caller): chat's own provider resolution with no model
   * asked for, so "none" means exactly that chat would fail: no enabled provider and no LLM_* fallback.
   */
  async describe(_actor: Actor): Promise<ChatModel> {
    const t = await this.providers.resolveForChat({});
    if (!t.ok) return { model: null };
    return { model: { label: t.label, source: t.providerId ? 'provider' : 'environment' } };
  }
}
