/** Product families a secret key can be limited to (spec, Authentication 5). */
export const SCOPES = ["email", "ip", "phone", "address", "entity", "consistency", "account"] as const;

export type Scope = (typeof SCOPES)[number];
