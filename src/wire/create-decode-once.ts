/** What a decoder reports of content it could not carry over. */
type Warn = (message: string) => void;

/**
 * A decoder of wire items that decodes each frozen item once. A frozen item is one the parse memo
 * shares between an account's requests (a message of a conversation sent again): its decoded
 * value, and the warnings its decoding gave, are kept beside it (held only as long as the item
 * is) and given again, frozen, so no request can change them for the next. Any other item is
 * decoded every time.
 */
export function createDecodeOnce<T extends object>(): (item: unknown, decode: (warn: Warn) => T, warn: Warn) => T {
  const decoded = new WeakMap<object, { readonly value: T; readonly warnings: readonly string[] }>();
  return (item, decode, warn) => {
    if (typeof item !== "object" || item === null || !Object.isFrozen(item)) return decode(warn);
    const known = decoded.get(item);
    if (known !== undefined) {
      for (const warning of known.warnings) warn(warning);
      return known.value;
    }
    const warnings: string[] = [];
    const value = decode((warning) => {
      warnings.push(warning);
      warn(warning);
    });
    decoded.set(item, { value: Object.freeze(value), warnings });
    return value;
  };
}
