import type { KeyAuthenticator } from "../accounts/principal.ts";
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
}
