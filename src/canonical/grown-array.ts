/** `array` copied into a new one of `length` elements of the same type (the rest zero): a slot table's room, doubled. */
export function grownArray<T extends Uint32Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}
