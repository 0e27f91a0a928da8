/** 529 is the Messages API's "overloaded"; clients of the OpenAI APIs know it as 503. */
export function openAIErrorStatus(status: number): number {
  return status === 529 ? 503 : status;
}
