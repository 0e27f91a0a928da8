/** A character JSON.stringify writes as an escape: `"`, `\`, a control character, or a surrogate (it escapes the lone ones). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Whether JSON.stringify writes `text` with an escape: otherwise its literal is the text between two quotes. */
export const needsJsonEscape = (text: string): boolean => NEEDS_ESCAPE.test(text);

/**
 * `text` as a JSON string literal, the same bytes JSON.stringify writes: quoted as it is when
 * nothing in it needs an escape (most streamed text), which spares the stringifier's setup on
 * every small delta.
 */
export const quoteJsonString = (text: string): string => (needsJsonEscape(text) ? JSON.stringify(text) : `"${text}"`);
