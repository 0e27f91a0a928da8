/** Tier names a client puts in `model`. `smart-plus` is reserved for the Smart+ job flow. */
export const TIERS = ["fast", "normal", "smart", "smart-plus"] as const;
export type Tier = (typeof TIERS)[number];

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}
