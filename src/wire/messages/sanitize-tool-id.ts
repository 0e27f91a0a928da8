/**
 * A tool call id the Messages API accepts (`^[a-zA-Z0-9_-]+$`): other characters become `_`.
 * Deterministic, so a result still names the rewritten id of its call.
 */
export function sanitizeToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}
