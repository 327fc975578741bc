/**
 * Numbering-plan patterns asked a question a RegExp cannot answer: can any number that starts with these digits and
 * has this length match? The block listing needs it to say what a prefix is (mobile, fixed line, ...) before any
 * whole number is known. The plans use a small regular-expression subset (digits, `\d`, classes, `(?:...)`, `|`,
 * `?`, `{n}`, `{n,m}`), parsed here into a tree whose matcher treats unknown digits as "any digit".
 */
type Node =
  | { kind: "digits"; mask: number }
  | { kind: "seq"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number };

const ANY_DIGIT = 0b11_1111_1111;

class Parser {
  private at = 0;
  private readonly source: string;
  constructor(source: string) {
    this.source = source;
  }

  parse(): Node {
    const node = this.alternation();
    if (this.at !== this.source.length)
      throw new Error(`unexpected ${this.source[this.at]} at ${this.at} in ${this.source}`);
    return node;
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.source[this.at] === "|") {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: "alt", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.source[this.at] !== "|" && this.source[this.at] !== ")")
      items.push(this.quantified(this.atom()));
    return { kind: "seq", items };
  }

  private atom(): Node {
    const char = this.source[this.at++];
    if (char === "(") {
      if (this.source.startsWith("?:", this.at)) this.at += 2;
      const inner = this.alternation();
      if (this.source[this.at++] !== ")") throw new Error(`unclosed group in ${this.source}`);
      return inner;
    }
    if (char === "[") return this.digitClass();
    if (char === "\\" && this.source[this.at++] === "d") return { kind: "digits", mask: ANY_DIGIT };
    if (char !== undefined && char >= "0" && char <= "9") return { kind: "digits", mask: 1 << Number(char) };
    throw new Error(`unsupported ${char} in ${this.source}`);
  }

  private digitClass(): Node {
    let mask = 0;
    while (this.source[this.at] !== "]") {
      if (this.source.startsWith("\\d", this.at)) {
        mask |= ANY_DIGIT;
        this.at += 2;
        continue;
      }
      const from = Number(this.source[this.at++]);
      const to = this.source[this.at] === "-" ? Number(this.source[(this.at += 2) - 1]) : from;
      for (let d = from; d <= to; d++) mask |= 1 << d;
    }
    this.at++;
    return { kind: "digits", mask };
  }

  private quantified(node: Node): Node {
    const next = this.source[this.at];
    if (next === "?") return (this.at++, { kind: "repeat", node, min: 0, max: 1 });
    if (next !== "{") return node;
    const close = this.source.indexOf("}", this.at);
    const [min, max] = this.source.slice(this.at + 1, close).split(",");
    this.at = close + 1;
    return { kind: "repeat", node, min: Number(min), max: max === undefined ? Number(min) : Number(max) };
  }
}

/** Where a match of `node` starting at `start` can end; `digits[i]` is a digit, or -1 for "any digit". */
function ends(node: Node, digits: number[], start: number): Set<number> {
  switch (node.kind) {
    case "digits": {
      const digit = digits[start];
      const fits = digit !== undefined && (digit < 0 || (node.mask & (1 << digit)) !== 0);
      return fits ? new Set([start + 1]) : new Set();
    }
    case "seq":
      return node.items.reduce(
        (at, item) => new Set([...at].flatMap((p) => [...ends(item, digits, p)])),
        new Set([start]),
      );
    case "alt":
      return new Set(node.options.flatMap((option) => [...ends(option, digits, start)]));
    case "repeat": {
      const found = new Set(node.min === 0 ? [start] : []);
      let at = new Set([start]);
      for (let n = 1; n <= node.max && at.size; n++) {
        at = new Set([...at].flatMap((p) => [...ends(node.node, digits, p)]));
        if (n >= node.min) for (const p of at) found.add(p);
      }
      return found;
    }
  }
}

const parsed = new Map<string, Node>();

/** Whether some number of `length` digits that starts with `prefix` matches `pattern` whole. */
export function admitsPrefix(pattern: string, prefix: string, length: number): boolean {
  if (prefix.length > length) return false;
  let node = parsed.get(pattern);
  if (!node) parsed.set(pattern, (node = new Parser(pattern).parse()));
  const digits = Array.from({ length }, (_, i) => (i < prefix.length ? prefix.charCodeAt(i) - 48 : -1));
  return ends(node, digits, 0).has(length);
}
