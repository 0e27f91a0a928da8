/** Features of the newest user text that rules can test. Computed only on a decision-cache miss. */
export interface TextFeatures {
  readonly code: boolean;
  readonly stackTrace: boolean;
  readonly diff: boolean;
}

// Anchored, linear patterns over already-bounded text: no backtracking storms.
const CODE =
  /```|^[ \t]*(def |class |function |import |from \S+ import |const |let |var |fn |func |package |#include|public |private |SELECT |CREATE TABLE )|[;{}]\s*$/m;
const STACK_TRACE =
  /Traceback \(most recent call last\)|^\s+at \S+ \(?\S+:\d+(:\d+)?\)?$|Exception in thread|panicked at|^\s+File "[^"]+", line \d+|^\S+Error: .+\n\s+at /m;
const DIFF = /^diff --git |^@@ -\d+(,\d+)? \+\d+(,\d+)? @@|^--- a\/|^\+\+\+ b\//m;

export function readTextFeatures(text: string): TextFeatures {
  return { code: CODE.test(text), stackTrace: STACK_TRACE.test(text), diff: DIFF.test(text) };
}
