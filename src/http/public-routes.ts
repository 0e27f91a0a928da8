/**
 * The public routes and their methods: a known path called with the wrong method answers 405, not
 * 404, and the OpenAPI document must describe each of them.
 */
export const PUBLIC_ROUTES: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^\/healthz\/?$/, ["GET"]],
  [/^\/readyz\/?$/, ["GET"]],
  [/^\/metrics\/?$/, ["GET"]],
  [/^\/openapi\.json$/, ["GET"]],
  [/^\/docs\/?$/, ["GET"]],
  [/^\/$/, ["GET", "HEAD"]],
  [/^\/v1\/handoff\/[^/]+\/upload\/?$/, ["POST"]],
  [/^\/v1\/handoff\/[^/]+\/patch\/?$/, ["GET"]],
  [/^\/v1\/messages\/?$/, ["POST"]],
  [/^\/v1\/messages\/count_tokens\/?$/, ["POST"]],
  [/^\/v1\/chat\/completions\/?$/, ["POST"]],
  [/^\/v1\/responses\/?$/, ["POST"]],
  [/^\/v1\/models\/?$/, ["GET"]],
  [/^\/v1\/models\/[^/]+\/?$/, ["GET"]],
];
