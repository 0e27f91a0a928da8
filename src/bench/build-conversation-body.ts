/**
 * A Claude-Code-like Messages request of about a given size: a long system prompt, a dozen tools
 * with schemas, then turn after turn of the assistant calling a tool (Read, Grep, Bash, Edit) and
 * the user turn carrying its result (source text, command output), ending on a plain question.
 * With `images`, every other tool result also carries a screenshot as base64 PNG, which is how a
 * coding agent sends one: most of such a body is then base64.
 *
 * Deterministic (a seeded generator), so every run sends the same bytes. No thinking blocks: the
 * simulated upstream checks their signatures, and a history the sim cannot verify is refused.
 * Not all ASCII: a model's prose has dashes and arrows, a test runner's output check marks, as
 * real conversations do (one character past U+00FF makes the whole decoded body 16-bit text).
 */

export interface ConversationBodyOptions {
  /** The serialised body is at least this many bytes (it stops at the first turn past it). */
  readonly targetBytes: number;
  readonly images: boolean;
  readonly model: string;
  readonly stream: boolean;
  readonly maxTokens: number;
}

/** A small linear congruential generator: the same sequence on every run and platform. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = (
  "const let return await async function import export type interface if else for while map filter reduce " +
  "request response stream event body header status error retry timeout config model tier route cache " +
  "usage token limit account key value result buffer chunk parse encode decode write read close open"
).split(" ");

function codeLines(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const indent = "  ".repeat(Math.floor(random() * 4));
    const count = 3 + Math.floor(random() * 9);
    const words: string[] = [];
    for (let w = 0; w < count; w++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    out.push(`${String(i + 1).padStart(5)}\t${indent}${words.join(" ")};`);
  }
  return out.join("\n");
}

/** Base64 of a PNG-signed blob of `bytes` pseudo-random bytes: the size and alphabet of a real screenshot. */
function fakePngBase64(random: () => number, bytes: number): string {
  const data = new Uint8Array(bytes);
  data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let i = 8; i < bytes; i++) data[i] = Math.floor(random() * 256);
  return Buffer.from(data).toString("base64");
}

const SYSTEM_PARAGRAPH =
  "You are an interactive CLI tool that helps users with software engineering tasks. Use the instructions below and " +
  "the tools available to you to assist the user. Be concise, direct and to the point. When you run a non-trivial " +
  "command, explain what it does and why. Follow the conventions of the codebase; never assume a library is available. ";

const schema = (properties: Record<string, unknown>, required: readonly string[]): Record<string, unknown> => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
  $schema: "http://json-schema.org/draft-07/schema#",
});
const text = (description: string): Record<string, unknown> => ({ type: "string", description });

const TOOLS: readonly Record<string, unknown>[] = [
  { name: "Bash", description: "Executes a given bash command in a persistent shell session with optional timeout.", input_schema: schema({ command: text("The command to execute"), timeout: { type: "number", description: "Optional timeout in milliseconds" }, description: text("What the command does, in 5-10 words") }, ["command"]) },
  { name: "Glob", description: "Fast file pattern matching tool that works with any codebase size.", input_schema: schema({ pattern: text("The glob pattern to match files against"), path: text("The directory to search in") }, ["pattern"]) },
  { name: "Grep", description: "A powerful search tool built on ripgrep. Supports full regex syntax.", input_schema: schema({ pattern: text("The regular expression pattern"), path: text("File or directory to search in"), glob: text("Glob pattern to filter files"), output_mode: { type: "string", enum: ["content", "files_with_matches", "count"] } }, ["pattern"]) },
  { name: "Read", description: "Reads a file from the local filesystem. Results are returned using cat -n format.", input_schema: schema({ file_path: text("The absolute path to the file to read"), offset: { type: "number" }, limit: { type: "number" } }, ["file_path"]) },
  { name: "Edit", description: "Performs exact string replacements in files.", input_schema: schema({ file_path: text("The absolute path to the file to modify"), old_string: text("The text to replace"), new_string: text("The text to replace it with"), replace_all: { type: "boolean", default: false } }, ["file_path", "old_string", "new_string"]) },
  { name: "Write", description: "Writes a file to the local filesystem.", input_schema: schema({ file_path: text("The absolute path to the file to write"), content: text("The content to write to the file") }, ["file_path", "content"]) },
  { name: "TodoWrite", description: "Use this tool to create and manage a structured task list for your current coding session.", input_schema: schema({ todos: { type: "array", items: { type: "object", properties: { content: { type: "string" }, status: { type: "string", enum: ["pending", "in_progress", "completed"] }, activeForm: { type: "string" } }, required: ["content", "status", "activeForm"] } } }, ["todos"]) },
  { name: "WebFetch", description: "Fetches content from a specified URL and processes it using an AI model.", input_schema: schema({ url: { type: "string", format: "uri" }, prompt: text("The prompt to run on the fetched content") }, ["url", "prompt"]) },
  { name: "Task", description: "Launch a new agent to handle complex, multi-step tasks autonomously.", input_schema: schema({ description: text("A short description of the task"), prompt: text("The task for the agent to perform"), subagent_type: text("The type of agent") }, ["description", "prompt", "subagent_type"]) },
  { name: "NotebookEdit", description: "Completely replaces the contents of a specific cell in a Jupyter notebook.", input_schema: schema({ notebook_path: text("The absolute path to the notebook"), cell_id: text("The ID of the cell to edit"), new_source: text("The new source for the cell") }, ["notebook_path", "new_source"]) },
];

const FILES = ["src/pipeline/handle-request.ts", "src/routing/decide-route.ts", "src/cache/build-key.ts", "src/usage/writer.ts", "test/pipeline/handle-request.test.ts"];

/** One assistant tool call and the user turn with its result (and, with `image`, a screenshot). */
function toolTurn(random: () => number, turn: number, image: boolean): Record<string, unknown>[] {
  const id = `toolu_01${turn.toString(36).padStart(6, "0")}Bench${Math.floor(random() * 1e9).toString(36)}`;
  const file = FILES[turn % FILES.length]!;
  const kind = turn % 4;
  const [name, input, output] =
    kind === 0
      ? ["Read", { file_path: `/home/dev/project/${file}` }, codeLines(random, 60 + Math.floor(random() * 60))]
      : kind === 1
        ? ["Grep", { pattern: "handle(Request|Response)", path: "/home/dev/project/src", output_mode: "content" }, codeLines(random, 20 + Math.floor(random() * 30))]
        : kind === 2
          ? ["Bash", { command: "bun test test/pipeline", description: "Run the pipeline tests" }, `bun test v1.4.5\n${codeLines(random, 40)}\n ✓ 12 pass\n ✗ 1 fail`]
          : ["Edit", { file_path: `/home/dev/project/${file}`, old_string: codeLines(random, 3), new_string: codeLines(random, 4) }, `The file /home/dev/project/${file} has been updated.`];
  const content: unknown[] = [{ type: "text", text: output }];
  if (image) content.push({ type: "image", source: { type: "base64", media_type: "image/png", data: fakePngBase64(random, 48 * 1024 + Math.floor(random() * 32 * 1024)) } });
  return [
    { role: "assistant", content: [{ type: "text", text: `Let me look at ${file} — to see how the request is handled.` }, { type: "tool_use", id, name, input }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
  ];
}

export function buildConversationBody(options: ConversationBodyOptions): Record<string, unknown> {
  const random = createRandom(options.images ? 0x1ace : 0xc0de);
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: options.maxTokens,
    system: [
      { type: "text", text: "You are Claude Code, a CLI for coding." },
      { type: "text", text: SYSTEM_PARAGRAPH.repeat(40), cache_control: { type: "ephemeral" } },
    ],
    tools: TOOLS,
    metadata: { user_id: "user_bench_session_0001" },
    ...(options.stream ? { stream: true } : {}),
  };
  const messages: Record<string, unknown>[] = [{ role: "user", content: [{ type: "text", text: "The pipeline test fails on a streamed answer. Find out why and fix it." }] }];
  // Roles alternate, as the API asks: the tool results are answered before the closing question.
  const closing = [
    { role: "assistant", content: [{ type: "text", text: "The stream's terminal event was held back; the test passes now." }] },
    { role: "user", content: [{ type: "text", text: "Good. Summarise what changed in two sentences.", cache_control: { type: "ephemeral" } }] },
  ];
  body.messages = messages;
  // Measured as it grows: a turn's size is known only once it is built.
  let size = Buffer.byteLength(JSON.stringify({ ...body, messages: [...messages, ...closing] }));
  for (let turn = 0; size < options.targetBytes; turn++) {
    const added = toolTurn(random, turn, options.images && turn % 2 === 1);
    messages.push(...added);
    size += Buffer.byteLength(JSON.stringify(added));
  }
  messages.push(...closing);
  return body;
}
