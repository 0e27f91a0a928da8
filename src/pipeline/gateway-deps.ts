import type { KeyAuthenticator } from "../accounts/principal.ts";
import type { ResponseCache } from "../cache/create-response-cache.ts";
import type { Limiter } from "../limits/limiter.ts";
import type { Routing } from "../routing/create-routing.ts";
import type { Config } from "../config/schema.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import type { RequestObserver } from "./request-record.ts";

/** What the request pipeline needs from the running process. */
export interface GatewayDeps {
  readonly config: Config;
  readonly authenticator: KeyAuthenticator;
  readonly providers: Readonly<Record<string, ResolvedProvider>>;
  /** Told of every finished request (request log, metrics, usage); absent = nobody listens. */
  readonly observe?: RequestObserver;
  /** Plan limits; absent = none (tests of other parts). */
  readonly limiter?: Limiter;
  /** The 10-minute response cache; absent or disabled = none. */
  readonly responseCache?: ResponseCache;
  /** Classification, decision cache, conversations, breaker; absent = the tier's first model at its default effort. */
  readonly routing?: Routing;
}
