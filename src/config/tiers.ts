export const TIERS = ['paygo', 'pilot', 'growth', 'scale', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export const isTier = (value: string): value is Tier => (TIERS as readonly string[]).includes(value);
