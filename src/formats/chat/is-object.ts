/** A JSON object (not null, not an array): the one definition, under the name this folder reads. */
export { isJsonObject as isObject } from "../../canonical/json-object.ts";
