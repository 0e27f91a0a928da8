/**
 * A Chat request with `n` > 1: it asks for several choices, which only a Chat upstream gives and
 * the canonical answer (one choice) cannot hold. `fields` is the body, or the canonical request's
 * `extra`, where `n` stays.
 */
export function wantsSeveralChoices(fields: Readonly<Record<string, unknown>>): boolean {
  return typeof fields.n === "number" && fields.n > 1;
}
