export { encodeOpenAIError as encodeChatError } from "../encode-openai-error.ts";
