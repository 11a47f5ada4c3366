import { apiRouters } from '../../src/app';
import type { Config } from '../../src/config';
import type { Services } from '../../src/services';
import { AUTH_MODE, AuthMode } from '../../src/transports/http/route';

export interface RouteInfo {
  method: string;
  path: string;
  /** undefined when the handler was not declared through route() */
  auth: AuthMode | undefined;
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ method?: string; handle: Record<symbol, unknown> }> };
}

/** Every REST route under /api, read from the real routers. */
export function listRoutes(): RouteInfo[] {
  const out: RouteInfo[] = [];
  // routers only read their services when a request comes: stand-ins are enough to walk them
  for (const router of apiRouters({ tokens: {} } as unknown as Services, {} as Config)) {
    for (const layer of (router as unknown as { stack: Layer[] }).stack) {
      if (!layer.route) continue;
      for (const h of layer.route.stack) {
        if (!h.method) continue;
        const modes = layer.route.stack.map((x) => x.handle[AUTH_MODE] as AuthMode | undefined).filter(Boolean);
        out.push({ method: h.method.toUpperCase(), path: `/api${layer.route.path}`, auth: modes[0] });
        break;
      }
    }
  }
  return out;
}
