/** A key as the parse reads it: most keys hold no escape, and are their text less the quotes. */
export function readJsonKey(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes("\\")) return raw;
  try {
    const key: unknown = JSON.parse(text.slice(start, end));
    return typeof key === "string" ? key : undefined;
  } catch {
    return undefined;
  }
}
