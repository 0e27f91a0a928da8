import { trimmedSize } from "../canonical/drop-oldest.ts";
import type { Effort } from "../canonical/effort.ts";
import { grownArray } from "../canonical/grown-array.ts";
import { hashKey } from "./hash-key.ts";
import type { ConversationPin, PinStore } from "./pin-store.ts";

/** Slots a new store has room for; the room doubles as pins come, up to `maxPins`. */
const FIRST_CAPACITY = 1024;
/** `foreignTurns` when a pin has none. */
const NO_FOREIGN_TURNS = 0;
/** A key as `hashKey` spells it; any other is hashed so first. */
const HASH_KEY = /^[0-9a-f]{32}$/;
/** Hex digits of a key in each of its two numbers: 52 bits, exact in a double. */
const DIGITS = 13;

/**
 * The in-process pin map: bounded, least recently used out first, entries expire after their TTL.
 *
 * A pin is kept as numbers in a slot (its model, class and effort as indexes into a table of the
 * names seen, its steps, foreign turns and expiry), so the store's only objects are a pin's `seen`
 * when it has one: the collector marks every object the heap holds at each full collection. Held
 * as objects (an entry, the pin, its escalation), 100,000 pins were about 270,000 objects more to
 * mark: under the bench's soak (every request a new conversation) a full collection took 37-52 ms
 * with the store full against 24 ms with 1,000 pins, and the process held 490 MB against 400 MB.
 * `get` builds the pin it returns, as the Redis store parses one.
 *
 * Nor is a key kept as a string: a key is a hash already (`hashKey`), so the map is keyed by its
 * first 52 bits as a number and the slot keeps the next 52 to check on each read. Two keys whose
 * first 52 bits agree (about one new pin in 10^10 with the store full) share a slot: the later one
 * takes it, and a read never returns the other's pin.
 */
export function createMemoryPinStore(maxPins: number, now: () => number = Date.now): PinStore {
  /** Each pin's slot by its key's head, in recency order (least recently used first). */
  const slots = new Map<number, number>();
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const capacity = Math.min(maxPins, FIRST_CAPACITY);
  let tails = new Float64Array(capacity);
  let model = new Uint32Array(capacity);
  let taskClass = new Uint32Array(capacity);
  let baseEffort = new Uint32Array(capacity);
  let steps = new Float64Array(capacity);
  let foreignTurns = new Float64Array(capacity);
  let expiresAt = new Float64Array(capacity);
  let seen: string[] = new Array<string>(capacity).fill("");
  /** Slots given back (evicted, expired), taken before new ones. */
  const free: number[] = [];
  let used = 0;
  /** The tail of the key `headOf` read last (two numbers from one call without an array for them). */
  let tail = 0;

  function headOf(key: string): number {
    const hex = HASH_KEY.test(key) ? key : hashKey([key]);
    tail = Number.parseInt(hex.slice(DIGITS, 2 * DIGITS), 16);
    return Number.parseInt(hex.slice(0, DIGITS), 16);
  }

  function nameOf(name: string): number {
    let index = nameIndex.get(name);
    if (index === undefined) {
      index = names.push(name) - 1;
      nameIndex.set(name, index);
    }
    return index;
  }

  function newSlot(): number {
    const reused = free.pop();
    if (reused !== undefined) return reused;
    if (used === seen.length) {
      // Room for one past the bound: a set adds its pin before the store is trimmed.
      const room = Math.min(maxPins + 1, used * 2);
      [model, taskClass, baseEffort] = [grownArray(model, room), grownArray(taskClass, room), grownArray(baseEffort, room)];
      [tails, steps, foreignTurns, expiresAt] = [grownArray(tails, room), grownArray(steps, room), grownArray(foreignTurns, room), grownArray(expiresAt, room)];
      seen = seen.concat(new Array<string>(room - used).fill(""));
    }
    return used++;
  }

  function release(head: number, slot: number): void {
    slots.delete(head);
    seen[slot] = "";
    free.push(slot);
  }

  return {
    kind: "memory",
    get(key, ttlMs) {
      const head = headOf(key);
      const slot = slots.get(head);
      if (slot === undefined || tails[slot] !== tail) return null;
      const at = now();
      if (expiresAt[slot]! <= at) {
        release(head, slot);
        return null;
      }
      if (ttlMs !== undefined) expiresAt[slot] = at + ttlMs;
      // Moved last: most recently used.
      slots.delete(head);
      slots.set(head, slot);
      const pin: ConversationPin = {
        model: names[model[slot]!]!,
        taskClass: names[taskClass[slot]!]!,
        baseEffort: names[baseEffort[slot]!]! as Effort,
        escalation: { steps: steps[slot]!, seen: seen[slot]! },
      };
      const foreign = foreignTurns[slot]!;
      return foreign === NO_FOREIGN_TURNS ? pin : { ...pin, foreignTurns: foreign };
    },
    set(key, pin, ttlMs) {
      const head = headOf(key);
      let slot = slots.get(head);
      if (slot === undefined) slot = newSlot();
      else slots.delete(head);
      slots.set(head, slot);
      tails[slot] = tail;
      model[slot] = nameOf(pin.model);
      taskClass[slot] = nameOf(pin.taskClass);
      baseEffort[slot] = nameOf(pin.baseEffort);
      steps[slot] = pin.escalation.steps;
      seen[slot] = pin.escalation.seen;
      foreignTurns[slot] = pin.foreignTurns ?? NO_FOREIGN_TURNS;
      expiresAt[slot] = now() + ttlMs;
      if (slots.size <= maxPins) return;
      // A fraction at once (see dropOldest): the oldest entries, in one walk.
      const keep = trimmedSize(maxPins);
      for (const [oldHead, oldSlot] of slots) {
        release(oldHead, oldSlot);
        if (slots.size <= keep) return;
      }
    },
    async close() {
      slots.clear();
    },
  };
}
