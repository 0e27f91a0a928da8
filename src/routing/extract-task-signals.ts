import type { CanonicalMessage, CanonicalRequest } from "../canonical/request.ts";
import type { ContentPart, ToolResultPart } from "../canonical/content-part.ts";

/** A tool result as the escalation tracker reads it: bounded text and the error flag. */
export interface ToolOutcomeText {
  readonly callId: string;
  readonly text: string;
  readonly isError: boolean;
}

/** What the router reads from a request. Everything is bounded so huge prompts stay cheap. */
export interface TaskSignals {
  /** The newest user text, cut to the scan limit. */
  readonly text: string;
  /** Its full length, characters. */
  readonly textChars: number;
  /** User turns with text (tool-result-only turns are part of the agent loop, not new turns). */
  readonly depth: number;
  readonly toolCount: number;
  readonly hasImages: boolean;
  /** Rough prompt size: characters / 4, images and tool definitions at a flat rate. */
  readonly promptTokens: number;
  readonly maxOutputTokens: number | undefined;
  /** The last message is a user message holding tool results: the agent loop goes on. */
  readonly lastIsToolResult: boolean;
  /** Tool results of the last message (at most a handful, each bounded). */
  readonly toolResults: readonly ToolOutcomeText[];
  /** The newest assistant turn repeated the tool calls (names and arguments) of the one before. */
  readonly repeatedToolCall: boolean;
}

const CHARS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1_600;
const TOOL_TOKENS = 150;
const MAX_TOOL_RESULTS = 8;

function partChars(part: ContentPart): number {
  switch (part.type) {
    case "text":
      return part.text.length;
    case "tool_call":
      return part.arguments.length + part.name.length;
    case "tool_result": {
      let n = 0;
      for (const inner of part.content) n += inner.type === "text" ? inner.text.length : IMAGE_TOKENS * CHARS_PER_TOKEN;
      return n;
    }
    case "thinking":
      return part.text.length;
    case "redacted_thinking":
      return part.data.length;
    case "image":
    case "document":
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    default: {
      const never: never = part;
      return never;
    }
  }
}

function hasImage(part: ContentPart): boolean {
  if (part.type === "image") return true;
  return part.type === "tool_result" && part.content.some((inner) => inner.type === "image");
}

/** Head and tail of a long text: errors show up at the end of logs, commands at the start. */
function boundText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n…\n${text.slice(text.length - half)}`;
}

function userText(content: readonly ContentPart[]): string | null {
  let text: string | null = null;
  for (const part of content) {
    if (part.type === "text") text = text === null ? part.text : `${text}\n${part.text}`;
  }
  return text;
}

/** What the walk over the history reads from one message's content. */
interface ContentSignals {
  readonly chars: number;
  readonly hasImage: boolean;
  /** Its text parts joined, null when it has none; read only for a user message (undefined until then). */
  text: string | null | undefined;
}

/**
 * A message's signals by its content, for content the decode shares between an account's requests
 * (frozen: a message of a conversation sent again): an agent resends hundreds of messages every
 * turn, and reading each one's parts again was most of routing's cost for a big conversation.
 * Held only as long as the content is.
 */
const readBefore = new WeakMap<readonly ContentPart[], ContentSignals>();

function contentSignals(content: readonly ContentPart[]): ContentSignals {
  const known = readBefore.get(content);
  if (known !== undefined) return known;
  let chars = 0;
  let image = false;
  for (const part of content) {
    chars += partChars(part);
    if (!image && hasImage(part)) image = true;
  }
  const signals: ContentSignals = { chars, hasImage: image, text: undefined };
  if (Object.isFrozen(content)) readBefore.set(content, signals);
  return signals;
}

function toolResultText(part: ToolResultPart, limit: number): string {
  const texts: string[] = [];
  for (const inner of part.content) if (inner.type === "text") texts.push(inner.text);
  return boundText(texts.join("\n"), limit);
}

function callsOf(message: CanonicalMessage | undefined): string {
  if (!message) return "";
  const calls: string[] = [];
  for (const part of message.content) if (part.type === "tool_call") calls.push(`${part.name}\u0000${part.arguments}`);
  return calls.join("\u0001");
}

/** The two newest assistant turns made the very same tool calls. */
function detectRepeat(messages: readonly CanonicalMessage[]): boolean {
  const assistants: CanonicalMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && assistants.length < 2; i--) {
    if (messages[i]!.role === "assistant") assistants.push(messages[i]!);
  }
  const newest = callsOf(assistants[0]);
  return newest !== "" && newest === callsOf(assistants[1]);
}

/** Reads the routing signals from a canonical request; `scanChars` bounds every text it keeps. */
export function extractTaskSignals(request: CanonicalRequest, scanChars: number): TaskSignals {
  let chars = 0;
  let hasImages = false;
  let depth = 0;
  let newest: string | null = null;
  for (const part of request.system) chars += part.text.length;
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    const signals = contentSignals(message.content);
    chars += signals.chars;
    if (signals.hasImage) hasImages = true;
    if (message.role !== "user") continue;
    // Null (no text: tool results only) is kept too; only undefined is unread.
    if (signals.text === undefined) signals.text = userText(message.content);
    if (signals.text === null) continue;
    depth++;
    newest ??= signals.text;
  }
  for (const tool of request.tools) chars += tool.kind === "function" ? (tool.description?.length ?? 0) : 0;
  const last = request.messages.at(-1);
  const results: ToolOutcomeText[] = [];
  if (last?.role === "user") {
    for (const part of last.content) {
      if (part.type !== "tool_result" || results.length >= MAX_TOOL_RESULTS) continue;
      results.push({ callId: part.callId, text: toolResultText(part, scanChars), isError: part.isError });
    }
  }
  const full = newest ?? "";
  return {
    text: full.length > scanChars ? full.slice(0, scanChars) : full,
    textChars: full.length,
    depth,
    toolCount: request.tools.length,
    hasImages,
    promptTokens: Math.ceil(chars / CHARS_PER_TOKEN) + request.tools.length * TOOL_TOKENS,
    maxOutputTokens: request.maxOutputTokens,
    lastIsToolResult: results.length > 0,
    toolResults: results,
    repeatedToolCall: results.length > 0 && detectRepeat(request.messages),
  };
}
