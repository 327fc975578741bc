// `provider-rules`: how a mail provider's RCPT answers are read (datasets/sources/provider-rules.json, README.md).
const RULE_FIELDS = ["id", "provider", "mx_suffixes", "accepts_all", "no_mailbox_replies", "notes"];
const REPLY_FIELDS = ["code", "status", "text"];

/**
 * Checked and normalized, file order kept (first match wins): suffixes lower-cased without a trailing dot, no suffix
 * under two rules, every reply entry with at least one known field, codes 5xx, statuses `5.x.y`, texts lower-cased.
 */
export function providerRules({ curated }) {
  const problems = [];
  const owner = new Map();
  const rules = curated.providerRules.content.rules.map((raw) => {
    const where = raw.id;
    const extra = Object.keys(raw).filter((key) => !RULE_FIELDS.includes(key));
    const absent = RULE_FIELDS.filter((key) => !(key in raw));
    if (extra.length || absent.length)
      problems.push(`${where}: unknown ${extra.join(",") || "-"}, missing ${absent.join(",") || "-"}`);
    if (typeof raw.accepts_all !== "boolean") problems.push(`${where}.accepts_all must be boolean`);
    const suffixes = (raw.mx_suffixes ?? []).map((s) => s.toLowerCase().replace(/\.$/, ""));
    if (suffixes.length === 0) problems.push(`${where}: no mx_suffixes`);
    for (const suffix of suffixes) {
      if (owner.has(suffix)) problems.push(`${suffix} is under both ${owner.get(suffix)} and ${where}`);
      owner.set(suffix, where);
    }
    const replies = (raw.no_mailbox_replies ?? []).map((reply, index) => {
      const keys = Object.keys(reply);
      if (keys.length === 0 || keys.some((key) => !REPLY_FIELDS.includes(key)))
        problems.push(`${where}.no_mailbox_replies[${index}]: fields are ${REPLY_FIELDS.join(", ")}`);
      if ("code" in reply && !(Number.isInteger(reply.code) && reply.code >= 500 && reply.code < 600))
        problems.push(`${where}.no_mailbox_replies[${index}].code must be 5xx`);
      if ("status" in reply && !/^5\.\d{1,3}\.\d{1,3}$/.test(reply.status))
        problems.push(`${where}.no_mailbox_replies[${index}].status must be 5.x.y`);
      return Object.fromEntries(
        REPLY_FIELDS.filter((key) => key in reply).map((key) => [
          key,
          key === "text" ? reply.text.toLowerCase() : reply[key],
        ]),
      );
    });
    return {
      ...Object.fromEntries(RULE_FIELDS.map((key) => [key, raw[key]])),
      mx_suffixes: suffixes,
      no_mailbox_replies: replies,
    };
  });
  if (new Set(rules.map((r) => r.id)).size !== rules.length) problems.push("rule ids repeat");
  if (problems.length) throw new Error(`provider-rules.json:\n  ${problems.join("\n  ")}`);
  return rules;
}
