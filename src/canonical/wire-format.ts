/** The three wire formats, spoken by clients (as endpoints) and by upstream APIs. */
export const WIRE_FORMATS = ["messages", "chat", "responses"] as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];
