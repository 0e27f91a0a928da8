/** `data:<mime>;base64,<data>` → its parts, or null for any other URL (plain links stay URLs). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  const match = /^data:([^;,]*)((?:;[^;,]*)*);base64,/i.exec(url);
  if (!match) return null;
  return { mediaType: match[1] || "application/octet-stream", data: url.slice(match[0].length) };
}

export const buildDataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;
