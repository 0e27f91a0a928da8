/** The OpenAI APIs' beta header, passed on from the client when it sent one. */
export function openAIVersionHeaders(client: Headers): Record<string, string> {
  const beta = client.get("openai-beta");
  return beta ? { "openai-beta": beta } : {};
}
