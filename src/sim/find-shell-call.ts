import { buildToolArgs } from "./build-tool-args.ts";
import type { SimTool, SimToolCall } from "./types.ts";
import { isJsonObject } from "../canonical/json-object.ts";

/** The agents' own shell tools: Claude Code's `Bash`, Codex's `exec_command` and `shell`, pi's `bash`. */
const SHELL_TOOL_NAMES: readonly string[] = ["Bash", "bash", "exec_command", "shell"];

/** "run `cmd`", "please execute the command `cmd`": a verb asking to run, then a back-ticked command. */
const ASKS_TO_RUN = /\b(?:run|execute|exec)\b[^`\n]{0,80}?`([^`\n]+)`/i;

/** The property of a tool's schema that takes the command line. */
function commandProperty(tool: SimTool): { name: string; schema: unknown } | undefined {
  const properties = isJsonObject(tool.schema) && isJsonObject(tool.schema.properties) ? tool.schema.properties : undefined;
  if (!properties) return undefined;
  for (const name of ["command", "cmd"]) if (name in properties) return { name, schema: properties[name] };
  return undefined;
}

/**
 * When the newest user text asks to run a back-ticked shell command and the request offers a
 * shell-like tool (one of the agents' shell tools, or any tool whose schema takes a `command` or
 * `cmd`), the call of that tool with that command: a string, or `["bash", "-lc", command]` where
 * the schema wants an argument list (Codex's `shell`). Null otherwise.
 */
export function findShellCall(userText: string, tools: readonly SimTool[]): SimToolCall | null {
  const asked = ASKS_TO_RUN.exec(userText);
  const command = asked?.[1]?.trim();
  if (!command) return null;
  const candidates = tools.filter((tool) => commandProperty(tool) !== undefined);
  const tool = candidates.find((t) => SHELL_TOOL_NAMES.includes(t.name)) ?? candidates[0];
  const property = tool && commandProperty(tool);
  if (!tool || !property) return null;
  const wantsList = isJsonObject(property.schema) && property.schema.type === "array";
  const args = { ...buildToolArgs(tool.schema), [property.name]: wantsList ? ["bash", "-lc", command] : command };
  return { name: tool.name, arguments: JSON.stringify(args) };
}
