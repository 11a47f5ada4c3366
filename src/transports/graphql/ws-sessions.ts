import { GraphQLError } from 'graphql';
import jwt from 'jsonwebtoken';
import { RateLimitedError } from '../../errors';
import type { Services } from '../../services';
import { authenticateBearer } from '../bearer';

/** The close code at token expiry: graphql-ws clients retry 4403 (4401 they treat as fatal). */
export const WS_TOKEN_EXPIRED = { code: 4403, reason: 'token_expired' } as const;

/** What a graphql-ws connection context offers us (graphql-ws's Context, narrowed). */
export interface WsConnection {
  readonly connectionParams?: Readonly<Record<string, unknown>>;
  readonly subscriptions: Readonly<Record<string, unknown>>;
  readonly extra: { socket?: { close(code: number, reason: string): void } };
}

interface Session {
  userId: string;
  authorization: string;
  timer: NodeJS.Timeout | null;
}

/**
 * Who is on each graphql-ws connection, and until when. A connection lives as long as its access
 * token: at the token's `exp` the server closes it (4403 `token_expired`). A client keeps it open
 * by sending a fresh token of the same user in a graphql-ws `ping` payload
 * (`{"type":"ping","payload":{"authorization":"Bearer …"}}`) before then; the later operations on
 * the connection use that token. Or it reconnects with a fresh token in `connection_init` (the
 * graphql-ws client does so by itself when `connectionParams` is a function returning the current
 * token and `retryAttempts` > 0).
 */
export class WsSessions {
  private readonly sessions = new WeakMap<WsConnection, Session>();

  constructor(
    private readonly services: Services,
    private readonly maxOperations: number,
  ) {}

  /** connection_init: true when the token is valid (the connection is then held to its expiry). */
  async connect(ctx: WsConnection, address: string): Promise<boolean> {
    const authorization = ctx.connectionParams?.authorization;
    try {
      const actor = await authenticateBearer(this.services.tokens, authorization, address);
      const session: Session = { userId: actor.id, authorization: authorization as string, timer: null };
      this.sessions.set(ctx, session);
      this.expireAt(ctx, session);
      return true;
    } catch {
      return false;
    }
  }

  /** A `ping` whose payload carries `authorization`: a fresh token for the same user extends the connection. */
  async ping(ctx: WsConnection, payload: unknown, address: string): Promise<void> {
    const session = this.sessions.get(ctx);
    const authorization = (payload as { authorization?: unknown } | undefined)?.authorization;
    if (!session || authorization === undefined) return; // a plain keep-alive ping
    try {
      const actor = await authenticateBearer(this.services.tokens, authorization, address);
      if (actor.id !== session.userId) throw new Error('another user');
      session.authorization = authorization as string;
      this.expireAt(ctx, session);
    } catch {
      this.end(ctx);
      ctx.extra.socket?.close(WS_TOKEN_EXPIRED.code, 'unauthorized');
    }
  }

  /** The Authorization value the connection's next operation runs with. */
  authorization(ctx: WsConnection): unknown {
    return this.sessions.get(ctx)?.authorization ?? ctx.connectionParams?.authorization;
  }

  /** The error for an operation over the per-connection cap (the operation itself is already counted). */
  overCap(ctx: WsConnection): GraphQLError | null {
    if (this.maxOperations <= 0 || Object.keys(ctx.subscriptions).length <= this.maxOperations) return null;
    const message = `At most ${this.maxOperations} operations at once per connection`;
    // mapped like a service's error: extensions.code rate_limited
    return new GraphQLError(message, { originalError: new RateLimitedError(1, message) });
  }

  /** The connection closed: its timer goes. */
  end(ctx: WsConnection): void {
    const s = this.sessions.get(ctx);
    if (s?.timer) clearTimeout(s.timer);
    this.sessions.delete(ctx);
  }

  private expireAt(ctx: WsConnection, session: Session): void {
    if (session.timer) clearTimeout(session.timer);
    const token = session.authorization.replace(/^Bearer\s+/i, '').trim();
    const exp = (jwt.decode(token) as { exp?: number } | null)?.exp;
    if (typeof exp !== 'number') return;
    session.timer = setTimeout(
      () => {
        this.end(ctx);
        ctx.extra.socket?.close(WS_TOKEN_EXPIRED.code, WS_TOKEN_EXPIRED.reason);
      },
      Math.max(0, exp * 1000 - Date.now()),
    );
    session.timer.unref();
  }
}
