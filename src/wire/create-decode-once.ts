import { freezeLevels } from "../canonical/freeze-levels.ts";

/** Levels of a kept value frozen: the list of parts, a part, a tool result's parts, one of those. */
const FROZEN_LEVELS = 4;

export interface DecodeOnce<T extends object> {
  (item: unknown, decode: (warnings: string[]) => T, warn: (warning: string) => void): T;
  /**
   * The kept value of an item decoded before, if any: looked up first, it spares a caller the
   * closure (and its scope) it would make for `decode`, on each message of a conversation sent again.
   */
  known(item: unknown): T | undefined;
}

/** An item the parse memo shares between requests: a frozen object. */
const isShared = (item: unknown): item is object => typeof item === "object" && item !== null && Object.isFrozen(item);

/**
 * A decoder of wire items that decodes each frozen item once. A frozen item is one the parse memo
 * shares between an account's requests (a message of a conversation sent again): its decoded
 * value is kept beside it (held only as long as the item is) and given again, frozen, so no
 * request can change it for the next. An item whose decoding warned is decoded every time (a
 * warning may name the item's place, which can change), as is any item not frozen. `decode`
 * pushes its warnings to the list it is given; they go on to `warn`.
 */
export function createDecodeOnce<T extends object>(): DecodeOnce<T> {
  const decoded = new WeakMap<object, T>();
  const known = (item: unknown): T | undefined => (isShared(item) ? decoded.get(item) : undefined);
  const decodeOnce = (item: unknown, decode: (warnings: string[]) => T, warn: (warning: string) => void): T => {
    const shared = isShared(item);
    const kept = shared ? decoded.get(item) : undefined;
    if (kept !== undefined) return kept;
    const warnings: string[] = [];
    const value = decode(warnings);
    if (warnings.length > 0) for (const warning of warnings) warn(warning);
    else if (shared) {
      freezeLevels(value, FROZEN_LEVELS);
      decoded.set(item, value);
    }
    return value;
  };
  return Object.assign(decodeOnce, { known });
}
