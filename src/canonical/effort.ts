/** The gateway's own reasoning-effort scale; each upstream API maps it onto its own field. */
export const EFFORTS = ["off", "low", "medium", "high", "max"] as const;
export type Effort = (typeof EFFORTS)[number];
