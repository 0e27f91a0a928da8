/**
 * `GET /v1/models`: the ids the sim advertises (it accepts any id). One list that both SDKs
 * parse: OpenAI's `{object:"list", data:[{id, object, created, owned_by}]}` with Anthropic's
 * `type`, `display_name`, `created_at`, `has_more`, `first_id`, `last_id` alongside.
 */
export function handleModels(ids: readonly string[]): Response {
  const data = ids.map((id) => ({
    id,
    object: "model",
    type: "model",
    display_name: id,
    created: 1_700_000_000,
    created_at: "2023-11-14T22:13:20Z",
    owned_by: "routelane-sim",
  }));
  return Response.json({ object: "list", data, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null });
}
