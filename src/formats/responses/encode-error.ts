export { encodeOpenAIError as encodeResponsesError } from "../chat/encode-error.ts";
