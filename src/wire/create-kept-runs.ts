/** A canonical message read from a run of consecutive wire items, kept with those items. */
export interface KeptRun<M> {
  readonly items: readonly object[];
  readonly message: M;
}

export interface KeptRuns<M> {
  /**
   * The kept run that `input[at]` begins, when the items that follow are its items and the one
   * after them (if any) `ends` the message, as it did when the run was read. Only objects'
   * identities are compared: no field of a run's items is read.
   */
  at(input: readonly unknown[], at: number, ends: (next: unknown, message: M) => boolean): KeptRun<M> | undefined;
  /** Keeps `message` as read from `items`: each one shared (frozen by the parse memo) and read without a warning. */
  keep(items: readonly object[], message: M): void;
}

/** The runs an item begins: the one of that item alone, and longer ones by their second item. */
interface Begun<M> {
  single?: KeptRun<M>;
  bySecond?: WeakMap<object, KeptRun<M>>;
}

/**
 * Canonical messages that wire formats build from several items (Responses turns; Chat's tool
 * messages, one user message of tool results), kept whole beside the first item, so a conversation
 * sent again costs a lookup and a comparison a message, not an array and an object. Runs are found
 * by their first two items: the parse memo gives one object for the same bytes wherever they come,
 * and an agent says the same words ("Let me look at that file.") before different calls, so an
 * item alone can begin many runs. The latest run kept for a key replaces the one before.
 */
export function createKeptRuns<M>(): KeptRuns<M> {
  const begun = new WeakMap<object, Begun<M>>();
  return {
    at(input, at, ends) {
      const runs = begun.get(input[at] as object);
      if (runs === undefined) return undefined;
      const second = input[at + 1];
      const run = (runs.bySecond !== undefined && typeof second === "object" && second !== null ? runs.bySecond.get(second) : undefined) ?? runs.single;
      if (run === undefined) return undefined;
      const { items } = run;
      const end = at + items.length;
      if (end > input.length) return undefined;
      for (let i = 1; i < items.length; i++) if (input[at + i] !== items[i]) return undefined;
      return end === input.length || ends(input[end], run.message) ? run : undefined;
    },
    keep(items, message) {
      const run: KeptRun<M> = { items, message };
      const first = items[0]!;
      let runs = begun.get(first);
      if (runs === undefined) begun.set(first, (runs = {}));
      if (items.length === 1) runs.single = run;
      else (runs.bySecond ??= new WeakMap()).set(items[1]!, run);
    },
  };
}
