/**
 * What every conversion returns: the converted value, and what could not be carried over
 * (logged in the request log as warnings, never silently lost).
 */
export interface Converted<T> {
  readonly value: T;
  readonly warnings: readonly string[];
}
