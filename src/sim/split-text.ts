const WORDS_PER_DELTA = 3;
const JSON_PARTS = 3;

/** Splits text into deltas of a few words each; the deltas concatenate back to the exact text. */
export function splitText(text: string, wordsPerDelta = WORDS_PER_DELTA): string[] {
  if (text === "") return [];
  const pieces = text.match(/\s*\S+\s*/g);
  if (!pieces) return [text];
  const deltas: string[] = [];
  for (let i = 0; i < pieces.length; i += wordsPerDelta) deltas.push(pieces.slice(i, i + wordsPerDelta).join(""));
  return deltas;
}

/** Splits argument JSON into a few fragments, as providers stream it (not valid JSON on their own). */
export function splitJson(json: string, parts = JSON_PARTS): string[] {
  if (json.length <= 4) return [json];
  const size = Math.ceil(json.length / parts);
  const fragments: string[] = [];
  for (let i = 0; i < json.length; i += size) fragments.push(json.slice(i, i + size));
  return fragments;
}
