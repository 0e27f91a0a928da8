/**
 * A Lua long string that cannot be closed early by the text: `[==[ … ]==]` with enough `=` that
 * the matching closer never appears inside. No escaping needed, unlike a quoted Lua string
 * (which has no \uXXXX escape for what JSON.stringify would produce).
 */
export function luaLongString(text: string): string {
  let level = 0;
  while (text.includes(`]${"=".repeat(level)}]`)) level++;
  const eq = "=".repeat(level);
  // A newline right after the opener is dropped by Lua; add one so a leading newline survives.
  return `[${eq}[\n${text}]${eq}]`;
}
