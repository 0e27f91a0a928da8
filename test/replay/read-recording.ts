import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { argsOf, arr, num, obj, str, type AnswerShape, type AnswerUsage, type Json, type Truth, type UnifiedStop } from "./answer-shape.ts";
import type { Recording } from "./recordings.ts";
import { recordedErrorStatus } from "./start-replay-upstream.ts";

const MESSAGES_STOPS: Readonly<Record<string, UnifiedStop>> = {
  end_turn: "end_turn",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  stop_sequence: "stop_sequence",
  tool_use: "tool_use",
  refusal: "refusal",
  pause_turn: "pause_turn",
};

const CANONICAL_BLOCKS = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

interface Builder {
  text: string;
  toolCalls: { id: string; name: string; args: unknown }[];
  thinking: { text: string; signature?: string }[];
  redacted: string[];
  other: string[];
}

const newBuilder = (): Builder => ({ text: "", toolCalls: [], thinking: [], redacted: [], other: [] });

function addMessagesBlock(b: Builder, block: Json): void {
  const type = str(block.type);
  if (type === "text") b.text += str(block.text);
  else if (type === "thinking") b.thinking.push({ text: str(block.thinking), ...(typeof block.signature === "string" ? { signature: block.signature } : {}) });
  else if (type === "redacted_thinking") b.redacted.push(str(block.data));
  else if (type === "tool_use") b.toolCalls.push({ id: str(block.id), name: str(block.name), args: argsOf(block.input) });
  if (!CANONICAL_BLOCKS.has(type)) b.other.push(type);
}

function messagesUsage(u: Json): AnswerUsage {
  const read = num(u.cache_read_input_tokens);
  const write = num(u.cache_creation_input_tokens);
  return { input: num(u.input_tokens) + read + write, output: num(u.output_tokens), cacheRead: read, cacheWrite: write, reasoning: num(obj(u.output_tokens_details).thinking_tokens) };
}

function readMessagesBody(body: Json): AnswerShape {
  const b = newBuilder();
  for (const block of arr(body.content)) addMessagesBlock(b, obj(block));
  return { ...b, stop: MESSAGES_STOPS[str(body.stop_reason)] ?? "end_turn", usage: messagesUsage(obj(body.usage)) };
}

const sum = (a: AnswerUsage, b: AnswerUsage): AnswerUsage => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
  reasoning: a.reasoning + b.reasoning,
});
const ZERO: AnswerUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/**
 * A Messages stream. Several messages may follow one another in one stream (programmatic tool
 * calling): they make one answer, their content in order, the last one's stop reason, their usage
 * added up (each was a billed call). A repeated `message_start` of the open message is ignored;
 * another message starting while one is open makes the stream a failure.
 */
function readMessagesStream(events: readonly Json[]): Truth {
  const b = newBuilder();
  let open: string | null = null;
  let blocks = new Map<number, Json & { json?: string }>();
  let usage = ZERO;
  let current: Json = {};
  let stop: UnifiedStop = "end_turn";
  let ended = false;
  for (const event of events) {
    switch (event.type) {
      case "message_start": {
        const message = obj(event.message);
        if (open !== null) {
          if (message.id === open) continue;
          return { kind: "error", status: 502, inStream: true };
        }
        open = str(message.id);
        blocks = new Map();
        current = { ...obj(message.usage) };
        for (const block of arr(message.content)) addMessagesBlock(b, obj(block));
        if (typeof message.stop_reason === "string") stop = MESSAGES_STOPS[message.stop_reason] ?? "end_turn";
        break;
      }
      case "content_block_start":
        blocks.set(num(event.index), { ...obj(event.content_block) });
        break;
      case "content_block_delta": {
        const block = blocks.get(num(event.index))!;
        const delta = obj(event.delta);
        if (delta.type === "text_delta") block.text = str(block.text) + str(delta.text);
        else if (delta.type === "thinking_delta") block.thinking = str(block.thinking) + str(delta.thinking);
        else if (delta.type === "signature_delta") block.signature = str(delta.signature);
        else if (delta.type === "input_json_delta") block.json = (block.json ?? "") + str(delta.partial_json);
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(num(event.index))!;
        if (block.json !== undefined) block.input = argsOf(block.json);
        addMessagesBlock(b, block);
        break;
      }
      case "message_delta":
        current = { ...current, ...obj(event.usage) };
        if (typeof obj(event.delta).stop_reason === "string") stop = MESSAGES_STOPS[str(obj(event.delta).stop_reason)] ?? "end_turn";
        break;
      case "message_stop":
        usage = sum(usage, messagesUsage(current));
        open = null;
        ended = true;
        break;
      case "error":
        return { kind: "error", status: 502, inStream: true };
    }
  }
  if (!ended || open !== null) return { kind: "error", status: 502, inStream: true };
  return { kind: "answer", answer: { ...b, stop, usage } };
}

function chatUsage(u: Json): AnswerUsage {
  const prompt = obj(u.prompt_tokens_details);
  return {
    input: num(u.prompt_tokens),
    output: num(u.completion_tokens),
    cacheRead: num(prompt.cached_tokens),
    cacheWrite: num(prompt.cache_write_tokens),
    reasoning: num(obj(u.completion_tokens_details).reasoning_tokens),
  };
}

function chatStop(finish: string, refused: boolean): UnifiedStop {
  if (finish === "length") return "max_tokens";
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  if (finish === "content_filter") return "content_filter";
  return refused ? "refusal" : "end_turn";
}

function readChatBody(body: Json): AnswerShape {
  const message = obj(obj(arr(body.choices)[0]).message);
  const reasoning = str(message.reasoning_content) || str(message.reasoning);
  const refusal = str(message.refusal);
  return {
    text: str(message.content) + refusal,
    toolCalls: arr(message.tool_calls).map(obj).map((c) => ({ id: str(c.id), name: str(obj(c.function).name), args: argsOf(obj(c.function).arguments) })),
    thinking: reasoning === "" ? [] : [{ text: reasoning }],
    redacted: [],
    stop: chatStop(str(obj(arr(body.choices)[0]).finish_reason), refusal !== ""),
    usage: chatUsage(obj(body.usage)),
    other: [],
  };
}

function readChatStream(events: readonly Json[]): AnswerShape {
  let text = "";
  let reasoning = "";
  let refusal = "";
  let finish = "";
  let usage: Json = {};
  const calls: { id: string; name: string; json: string }[] = [];
  for (const chunk of events) {
    if (chunk.usage !== null && chunk.usage !== undefined) usage = obj(chunk.usage);
    const choice = obj(arr(chunk.choices)[0]);
    const delta = obj(choice.delta);
    text += str(delta.content);
    reasoning += str(delta.reasoning_content) || str(delta.reasoning);
    refusal += str(delta.refusal);
    for (const piece of arr(delta.tool_calls).map(obj)) {
      const call = (calls[num(piece.index)] ??= { id: "", name: "", json: "" });
      if (typeof piece.id === "string") call.id = piece.id;
      call.name += str(obj(piece.function).name);
      call.json += str(obj(piece.function).arguments);
    }
    if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
  }
  return {
    text: text + refusal,
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, args: argsOf(c.json) })),
    thinking: reasoning === "" ? [] : [{ text: reasoning }],
    redacted: [],
    stop: chatStop(finish, refusal !== ""),
    usage: chatUsage(usage),
    other: [],
  };
}

function readResponsesBody(response: Json): AnswerShape {
  const b = newBuilder();
  let refused = false;
  for (const item of arr(response.output).map(obj)) {
    const type = str(item.type);
    if (type === "message") {
      for (const part of arr(item.content).map(obj)) {
        if (part.type === "output_text") b.text += str(part.text);
        if (part.type === "refusal") {
          b.text += str(part.refusal);
          refused = true;
        }
      }
    } else if (type === "function_call") b.toolCalls.push({ id: str(item.call_id), name: str(item.name), args: argsOf(item.arguments) });
    else if (type === "reasoning") {
      const text = arr(item.summary).map(obj).map((s) => str(s.text)).filter((t) => t !== "").join("\n\n");
      b.thinking.push({ text, ...(typeof item.encrypted_content === "string" ? { signature: item.encrypted_content } : {}) });
    } else b.other.push(type);
  }
  const usage = obj(response.usage);
  const reason = str(obj(response.incomplete_details).reason);
  const stop: UnifiedStop =
    response.status === "incomplete" ? (reason === "content_filter" ? "content_filter" : "max_tokens") : refused ? "refusal" : b.toolCalls.length > 0 ? "tool_use" : "end_turn";
  return {
    ...b,
    stop,
    usage: {
      input: num(usage.input_tokens),
      output: num(usage.output_tokens),
      cacheRead: num(obj(usage.input_tokens_details).cached_tokens),
      cacheWrite: num(obj(usage.input_tokens_details).cache_write_tokens),
      reasoning: num(obj(usage.output_tokens_details).reasoning_tokens),
    },
  };
}

/**
 * The text of each content part as a streaming reader gets it: the deltas, then the rest of the
 * part's final text where it goes on from them (a final text that contradicts the deltas cannot
 * take them back). Keyed `<output_index>:<content_index>`.
 */
function streamedTexts(events: readonly Json[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const event of events) {
    const key = `${num(event.output_index)}:${num(event.content_index)}`;
    const sofar = texts.get(key) ?? "";
    if (event.type === "response.output_text.delta" || event.type === "response.refusal.delta") texts.set(key, sofar + str(event.delta));
    const whole = event.type === "response.output_text.done" ? str(event.text) : event.type === "response.refusal.done" ? str(event.refusal) : null;
    if (whole?.startsWith(sofar)) texts.set(key, whole);
  }
  return texts;
}

/** A Responses stream's answer is the response its terminal event carries (texts as streamed); a failure has the status of its error's type. */
function readResponsesStream(events: readonly Json[]): Truth {
  let started = false;
  const texts = streamedTexts(events);
  for (const event of events) {
    started ||= event.type === "response.output_item.added";
    if (event.type === "error") return { kind: "error", status: recordedErrorStatus({ error: obj(event.error) }) ?? 502, inStream: started };
    if (event.type === "response.failed") return { kind: "error", status: recordedErrorStatus({ error: obj(obj(event.response).error) }) ?? 502, inStream: started };
    if (event.type === "response.completed" || event.type === "response.incomplete") {
      const response = obj(event.response);
      const output = arr(response.output).map((item, i) => {
        const it = obj(item);
        if (it.type !== "message") return it;
        const content = arr(it.content).map((part, j) => {
          const text = texts.get(`${i}:${j}`);
          return text === undefined ? part : obj(part).type === "refusal" ? { ...obj(part), refusal: text } : { ...obj(part), text };
        });
        return { ...it, content };
      });
      return { kind: "answer", answer: readResponsesBody({ ...response, output }) };
    }
  }
  return { kind: "error", status: 502, inStream: true };
}

const BODY_READERS: Readonly<Record<WireFormat, (body: Json) => AnswerShape>> = { messages: readMessagesBody, chat: readChatBody, responses: readResponsesBody };

/** What a recording holds, in canonical terms: its answer, or the failure it is. */
export function readRecording(recording: Recording): Truth {
  if (!recording.stream) {
    const status = recordedErrorStatus(recording.body);
    if (status !== null) return { kind: "error", status, inStream: false };
    return { kind: "answer", answer: BODY_READERS[recording.api](obj(recording.body)) };
  }
  // An event that is not JSON fails the stream where it stands: before the answer started, or in it.
  const broken = recording.events!.indexOf(null);
  if (broken >= 0) return { kind: "error", status: 502, inStream: broken > 0 };
  const events = recording.events!.map(obj);
  if (recording.api === "messages") return readMessagesStream(events);
  if (recording.api === "chat") return { kind: "answer", answer: readChatStream(events) };
  return readResponsesStream(events);
}
