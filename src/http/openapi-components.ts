/**
 * Shared schemas as `components`: the route docs inline every schema (the same answer object appears under a lookup,
 * its batch, its monitors...), so the built document repeats large subtrees. This pass finds subtrees that occur more
 * than once, keeps one copy under `components.schemas` and points the others at it with `$ref`. It works on the JSON
 * alone, so routes need no names for their schemas: a component is named after where it first appears.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Subtrees smaller than this (serialized bytes) stay inline: a `$ref` would save next to nothing. */
const MIN_BYTES = 160;

const isObject = (value: Json): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON Schema node (not a `properties` map, whose keys are field names). */
const isSchema = (node: JsonObject) =>
  typeof node.type === "string" ||
  Array.isArray(node.type) ||
  Array.isArray(node.anyOf) ||
  Array.isArray(node.oneOf) ||
  Array.isArray(node.allOf);

/** Serializes every subtree once, bottom-up, so each node's text is built from its children's. */
function serializer() {
  const texts = new Map<object, string>();
  const text = (node: Json): string => {
    if (!isObject(node) && !Array.isArray(node)) return JSON.stringify(node);
    const known = texts.get(node);
    if (known !== undefined) return known;
    const built = Array.isArray(node)
      ? `[${node.map(text).join(",")}]`
      : `{${Object.entries(node)
          .map(([key, value]) => `${JSON.stringify(key)}:${text(value)}`)
          .join(",")}}`;
    texts.set(node, built);
    return built;
  };
  return text;
}

const pascal = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");

const singular = (word: string) =>
  word
    .replace(/ies$/, "y")
    .replace(/(ss|x|ch|sh)es$/, "$1")
    .replace(/([^s])s$/, "$1");

const WRAPPERS = new Set(["anyOf", "oneOf", "allOf", "items", "additionalProperties"]);

/**
 * Readable names from the keys leading to a subtree: the field it is (`Job`, `Source` for an item of `sources`), or
 * the operation it belongs to (`EmailBatchRequest`); the second choice puts the product first (`PhoneMonitor`).
 */
function namesFor(trail: string[]): string[] {
  // Under paths: ["paths", "/api/v1/email/bulk/{jobId}", "get", "responses", "200", ...].
  const segments = (trail[1] ?? "").replace(/^\/api\/v1\//, "").replace(/\{[^}]*\}/g, "");
  const product = pascal(segments.split("/")[0] ?? "");
  const keys = trail.filter((key) => !/^\d+$/.test(key));
  let i = keys.length - 1;
  let item = false;
  for (; i > 0 && WRAPPERS.has(keys[i]!); i--) item ||= keys[i] === "items";
  const field = keys[i]!;
  if (keys[i - 1] === "properties" && field !== "data" && field !== "meta") {
    const name = pascal(item ? singular(field) : field);
    return [name, `${product}${name}`];
  }
  const role = keys.includes("requestBody")
    ? "Request"
    : keys.includes("parameters")
      ? "Parameter"
      : field === "meta"
        ? "Meta"
        : field === "data"
          ? "Answer"
          : "Response";
  return [`${pascal(segments)}${role}`];
}

/**
 * Moves every repeated schema subtree of `paths` into `schemas` (which may already hold named ones) and answers the
 * number of components added. Outermost repeats win; a component that ends up referenced once is put back inline.
 */
export function hoistSharedSchemas(paths: JsonObject, schemas: JsonObject): number {
  const text = serializer();
  const counts = new Map<string, number>();
  const count = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(count);
    if (!isObject(node)) return;
    if (isSchema(node)) {
      const key = text(node);
      if (key.length >= MIN_BYTES) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    Object.values(node).forEach(count);
  };
  count(paths);

  const nameOf = new Map<string, string>();
  const taken = new Set(Object.keys(schemas));
  const uses = new Map<string, number>();
  const rewrite = (node: Json, trail: string[]): Json => {
    if (Array.isArray(node)) return node.map((item, index) => rewrite(item, [...trail, String(index)]));
    if (!isObject(node)) return node;
    const key = isSchema(node) ? text(node) : "";
    if ((counts.get(key) ?? 0) >= 2) {
      let name = nameOf.get(key);
      if (!name) {
        const choices = namesFor(trail);
        const base = choices.at(-1)!;
        name = choices.find((choice) => !taken.has(choice)) ?? base;
        for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
        taken.add(name);
        nameOf.set(key, name);
        schemas[name] = rewriteChildren(node, [name]);
      }
      uses.set(name, (uses.get(name) ?? 0) + 1);
      return { $ref: `#/components/schemas/${name}` };
    }
    return rewriteChildren(node, trail);
  };
  const rewriteChildren = (node: JsonObject, trail: string[]): JsonObject =>
    Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, [...trail, k])]));
  for (const [path, item] of Object.entries(paths)) paths[path] = rewrite(item, ["paths", path]);

  // A subtree repeated only inside one larger repeat is referenced once after all: inline it again.
  const once = new Map([...uses].filter(([, n]) => n === 1).map(([name]) => [name, schemas[name]!]));
  const inline = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(inline);
    if (!isObject(node)) return node;
    const ref = typeof node.$ref === "string" ? node.$ref.replace("#/components/schemas/", "") : null;
    if (ref && once.has(ref)) return inline(once.get(ref)!);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  for (const name of once.keys()) delete schemas[name];
  for (const name of Object.keys(schemas)) schemas[name] = inline(schemas[name]!);
  for (const [path, item] of Object.entries(paths)) paths[path] = inline(item);
  return nameOf.size - once.size;
}
