// A DNS-over-HTTPS resolver (the JSON API, `GET ?name=&type=`, application/dns-json) for MX host names. Development
// only: `npm run dev -- --offline` and the tests point it at the stand-in resolver, so sample MX names such as
// mta5.am0.yahoodns.net resolve to the stand-in SMTP server the way the Worker's own DoH lookups see them. Production
// resolves with node:dns (targets.mjs).

const TYPES = { A: 1, AAAA: 28 };

/**
 * @param {string} url the resolver's endpoint, e.g. http://127.0.0.1:8026/dns-query
 * @param {typeof fetch} [fetchImpl]
 * @returns {import("./targets.mjs").HostResolver}
 */
export function createDohResolver(url, fetchImpl = fetch) {
  const query = async (name, type) => {
    const target = new URL(url);
    target.searchParams.set("name", name);
    target.searchParams.set("type", type);
    const response = await fetchImpl(target, {
      headers: { accept: "application/dns-json" },
      signal: AbortSignal.timeout(3000),
    });
    if (!response.ok) throw new Error(`DoH answered ${response.status}`);
    const body = await response.json();
    if (body.Status !== 0)
      throw Object.assign(new Error(`DoH status ${body.Status} for ${name}`), {
        code: body.Status === 3 ? "ENOTFOUND" : "ESERVFAIL",
      });
    return (body.Answer ?? []).filter((record) => record.type === TYPES[type]).map((record) => String(record.data));
  };
  return { resolve4: (name) => query(name, "A"), resolve6: (name) => query(name, "AAAA") };
}
