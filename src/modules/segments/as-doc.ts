/**
 * Presenters build plain objects; the route's response schema is what whitelists and types them on
 * the wire (fast-json-stringify drops anything it does not declare). This cast bridges the two.
 */
export const asDoc = (p: Promise<unknown>): Promise<never> => p as Promise<never>;
