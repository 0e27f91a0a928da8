/** Field names whose values are secrets wherever they appear in a logged body. */
const SECRET_FIELDS = /^(x-api-key|api[-_]?key|authorization|proxy-authorization|token|job[-_]?token|access[-_]?token|secret|password)$/i;

/** Routelane keys (`rl_`), job tokens (`rlj_`), bearer values and common provider key shapes inside any string. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\brlj?_[A-Za-z0-9]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}/g,
];

const REDACTED = "[redacted]";

function redactString(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * A deep copy of a body with keys and job tokens replaced, for debug body logging: by field name
 * (`authorization`, `api_key`, …) and by shape anywhere in a string, since prompts may quote them.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactString(value);
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    out[name] = SECRET_FIELDS.test(name) ? REDACTED : redactSecrets(inner, depth + 1);
  }
  return out;
}
