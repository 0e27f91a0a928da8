/**
 * How many numbers each top-level member of a JSON object's text takes in a flat list of its
 * members (what the body scan finds and the cache key reads): where its key's opening quote is,
 * where its key ends (after the closing quote), where its value ends (after its last character),
 * where its value starts. Flat, so a 1 MB conversation's scan makes one array, not one per member.
 */
export const MEMBER_OFFSETS = 4;
