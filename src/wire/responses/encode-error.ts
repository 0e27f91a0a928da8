export { encodeOpenAIError as encodeResponsesError } from "../encode-openai-error.ts";
