/**
 * Context blocks coding agents put into the user's turn: Claude Code's `<system-reminder>`, Codex's
 * `<environment_context>` and `<user_instructions>` (separate messages that a translation may merge
 * into the user's own).
 */
const AGENT_CONTEXT = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;

/**
 * The user text without agent context blocks: the answer quotes the user's own words, and a tool
 * name mentioned only in such context must not trigger a call.
 */
export function stripAgentContext(text: string): string {
  return text.includes("<") ? text.replace(AGENT_CONTEXT, " ").trim() : text;
}
