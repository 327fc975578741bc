/**
 * The 7-day repeat window of every product, keyed by (product, key) in the account's object (its lists, beside its
 * money: durable-objects/account/lists.ts): a repeat of a paid (or settled) answer within the window is free. The
 * object prunes markers past the window itself.
 */
export const REPEAT_WINDOW_MS = 7 * 86_400_000;
