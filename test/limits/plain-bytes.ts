import { z } from "zod";

/** The parts of a JSON Schema (as zod writes one for a request) that bound a value's size. */
interface Json {
  type?: string | string[];
  maxLength?: number;
  pattern?: string;
  maxItems?: number;
  items?: Json;
  properties?: Record<string, Json>;
  anyOf?: Json[];
  oneOf?: Json[];
  allOf?: Json[];
  enum?: unknown[];
  const?: unknown;
  not?: unknown;
}

/** The longest string a pattern of one character class and a count matches (`^[A-Za-z]{2}$`), or null. */
const patternLength = (pattern: string) => {
  const count = /^\^\[[^\]]+\]\{(?:\d+,)?(\d+)\}\$$/.exec(pattern);
  return count ? Number(count[1]) : null;
};

function jsonBytes(s: Json): number {
  // `not: {}` is zod's never: a branch no value takes (address's bare string), so it adds nothing.
  if (s.not !== undefined && s.type === undefined) return 0;
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return Math.max(...alternatives.map(jsonBytes));
  if (s.allOf) return Math.min(...s.allOf.map(jsonBytes));
  if (s.const !== undefined) return JSON.stringify(s.const).length;
  if (s.enum) return Math.max(...s.enum.map((v) => JSON.stringify(v).length));
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (!types.length) return Infinity;
  return Math.max(
    ...types.map((type) => {
      switch (type) {
        case "string": {
          const max = s.maxLength ?? (s.pattern ? patternLength(s.pattern) : null);
          return max === null ? Infinity : max + 2;
        }
        case "number":
        case "integer":
          return String(Number.MIN_SAFE_INTEGER).length;
        case "boolean":
          return "false".length;
        case "null":
          return "null".length;
        case "array":
          return s.maxItems === undefined ? Infinity : 2 + s.maxItems * (jsonBytes(s.items ?? {}) + 1);
        case "object":
          return Object.entries(s.properties ?? {}).reduce(
            (sum, [key, field]) => sum + key.length + 4 + jsonBytes(field),
            2,
          );
        default:
          return Infinity;
      }
    }),
  );
}

/**
 * The JSON bytes of the largest value a schema accepts, each character counted as one byte: a list of ASCII values
 * at every field's maximum length, the measure docs/api-decisions.md ("Request bodies") sizes the body limits by.
 * Read from the schema's JSON Schema (as the OpenAPI document shows it), so schemas that dispatch by hand (address,
 * entity) are sized by the shapes they document. Escapes and multi-byte characters are left out on purpose: they grow
 * a body that its limit then refuses honestly (422 keyed `body`), not silently. Infinity: no largest value.
 */
export const plainBytes = (schema: z.ZodType): number =>
  jsonBytes(z.toJSONSchema(schema, { io: "input", unrepresentable: "any", cycles: "throw", reused: "inline" }) as Json);

const maxLengthCheck = (schema: z.ZodType) =>
  (schema._zod.def as { checks?: { _zod: { def: { check: string; maximum?: number } } }[] }).checks
    ?.map((c) => c._zod.def)
    .find((c) => c.check === "max_length")?.maximum;

/** The largest item count an array schema accepts (its `.max()`); undefined when it has none. */
export function maxItems(schema: z.ZodType): number | undefined {
  const def = schema._zod.def as z.core.$ZodTypeDef & { innerType?: z.ZodType };
  if (def.innerType) return maxItems(def.innerType);
  return def.type === "array" ? maxLengthCheck(schema) : undefined;
}

/** The field of an object schema holding its list (the one array with a maximum), with that list's schema. */
export function listField(schema: z.ZodType): { field: string; list: z.ZodArray } {
  const shape = (schema as z.ZodObject).shape;
  const found = Object.entries(shape).find(([, field]) => maxItems(field as z.ZodType) !== undefined);
  if (!found) throw new Error("listField: the schema has no bounded list");
  return { field: found[0], list: found[1] as z.ZodArray };
}
