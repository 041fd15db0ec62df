/**
 * What a PromQL expression reads: each metric it selects, with the labels it names on it (in the
 * selector's matchers and in the `by (...)`, `on (...)`, `ignoring (...)` and `group_left (...)`
 * clauses around it). Enough of PromQL's grammar to tell a metric from a function, an aggregation,
 * a keyword or a label, not an evaluator. Grafana's variables (`$job`, `${datasource}`,
 * `$__rate_interval`) are read as values.
 */
import { PromqlSyntaxError } from "../errors.ts";

/** A metric an expression selects, and the labels it names on that metric. */
export interface MetricReference {
  /** The metric name as selected: a histogram's series carry their suffix (`..._bucket`). */
  readonly metric: string;
  /** Label names of its matchers and of the grouping and matching clauses that apply to it. */
  readonly labels: readonly string[];
}

interface Token {
  readonly kind: "ident" | "string" | "value" | "punct";
  readonly text: string;
  readonly at: number;
}

const lexemes: readonly [Token["kind"] | "space", RegExp][] = [
  ["space", /\s+|#[^\n]*/y],
  ["value", /(?:\d+(?:ms|[smhdwy]))+|0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y],
  ["value", /\$\{\w+(?::\w+)?\}|\$\w+|\[\[\w+\]\]/y],
  ["ident", /[a-zA-Z_:][\w:]*/y],
  ["string", /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/y],
  ["punct", /=~|!~|==|!=|<=|>=|[(){}[\],:@=<>+\-*/%^]/y],
];

/** The expression's tokens, whitespace and comments left out. */
function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  for (let at = 0; at < expr.length; ) {
    const found = lexemes.find(([, pattern]) => {
      pattern.lastIndex = at;
      return pattern.test(expr);
    });
    if (!found) throw new PromqlSyntaxError(expr, at, `unexpected character '${expr[at]}'`);
    const [kind, pattern] = found;
    if (kind !== "space") tokens.push({ kind, text: expr.slice(at, pattern.lastIndex), at });
    at = pattern.lastIndex;
  }
  return tokens;
}

const binaryKeywords = new Set(["and", "or", "unless", "atan2"]);
const binaryOperators = new Set(["+", "-", "*", "/", "%", "^", "==", "!=", "<", ">", "<=", ">="]);
const valueKeywords = new Set(["inf", "nan"]);

/** A selected metric whose label names grow as enclosing clauses are read. */
interface Reference {
  metric: string;
  labels: Set<string>;
}

/** Recursive descent over the tokens, returning the references each sub-expression holds. */
class Parser {
  readonly #expr: string;
  readonly #tokens: Token[];
  #next = 0;

  constructor(expr: string) {
    this.#expr = expr;
    this.#tokens = tokenize(expr);
  }

  parse(): Reference[] {
    const references = this.#expression();
    if (this.#peek()) this.#fail("the end of the expression");
    return references;
  }

  /** `operand (operator [bool] [on|ignoring (labels)] [group_left|group_right [(labels)]] operand)*` */
  #expression(): Reference[] {
    const references = this.#unary();
    while (this.#atBinaryOperator()) {
      this.#take();
      this.#accept("bool");
      const matching = this.#accept("on") || this.#accept("ignoring") ? this.#labelList() : [];
      if (this.#accept("group_left") || this.#accept("group_right"))
        if (this.#peek()?.text === "(") matching.push(...this.#labelList());
      references.push(...this.#unary());
      for (const reference of references) for (const label of matching) reference.labels.add(label);
    }
    return references;
  }

  #atBinaryOperator(): boolean {
    const token = this.#peek();
    if (!token) return false;
    return token.kind === "punct" ? binaryOperators.has(token.text) : binaryKeywords.has(token.text);
  }

  /** `[-|+] primary` followed by range brackets, `offset` and `@` modifiers. */
  #unary(): Reference[] {
    while (this.#accept("-") || this.#accept("+"));
    const references = this.#primary();
    for (;;) {
      if (this.#accept("[")) this.#skipPast("]");
      else if (this.#accept("offset")) this.#unary();
      else if (this.#accept("@")) this.#unary();
      else return references;
    }
  }

  #primary(): Reference[] {
    const token = this.#take();
    if (token.text === "(") return this.#closedBy(")", this.#expression());
    if (token.text === "{") return [this.#selector("")];
    if (token.kind === "value" || token.kind === "string") return [];
    if (token.kind !== "ident") return this.#fail("an operand", token);
    const next = this.#peek()?.text;
    if (next === "by" || next === "without" || next === "(") return this.#call();
    if (valueKeywords.has(token.text.toLowerCase())) return [];
    return [this.#accept("{") ? this.#selector(token.text) : { metric: token.text, labels: new Set() }];
  }

  /** A function or aggregation call, the name just taken, with its `by (...)` before or after the arguments. */
  #call(): Reference[] {
    const grouping = this.#grouping();
    const references: Reference[] = [];
    this.#expect("(");
    this.#list(")", () => references.push(...this.#expression()));
    grouping.push(...this.#grouping());
    for (const reference of references) for (const label of grouping) reference.labels.add(label);
    return references;
  }

  /** The labels of a `by (...)` clause; none for `without (...)` (which need not exist) or no clause. */
  #grouping(): string[] {
    if (this.#accept("by")) return this.#labelList();
    if (this.#accept("without")) this.#labelList();
    return [];
  }

  /** `{label op "value", ...}` after its `{`, of metric `name` unless a `__name__` matcher names it. */
  #selector(name: string): Reference {
    const reference = { metric: name, labels: new Set<string>() };
    this.#list("}", () => {
      const label = this.#label();
      const op = this.#take();
      if (!["=", "!=", "=~", "!~"].includes(op.text)) this.#fail("a label matcher (=, !=, =~, !~)", op);
      const value = this.#take();
      if (value.kind !== "string") this.#fail("a quoted label value", value);
      if (label !== "__name__") reference.labels.add(label);
      else if (op.text === "=") reference.metric = value.text.slice(1, -1);
    });
    return reference;
  }

  /** `(label, ...)`. */
  #labelList(): string[] {
    const labels: string[] = [];
    this.#expect("(");
    this.#list(")", () => labels.push(this.#label()));
    return labels;
  }

  #label(): string {
    const token = this.#take();
    return token.kind === "ident" ? token.text : this.#fail("a label name", token);
  }

  /** Items separated by commas (a trailing one allowed) up to `close`, which it takes. */
  #list(close: string, item: () => void): void {
    while (!this.#accept(close)) {
      item();
      if (!this.#accept(",")) {
        this.#expect(close);
        return;
      }
    }
  }

  #closedBy<T>(text: string, value: T): T {
    this.#expect(text);
    return value;
  }

  #skipPast(text: string): void {
    while (this.#take().text !== text);
  }

  #peek(): Token | undefined {
    return this.#tokens[this.#next];
  }

  #take(): Token {
    const token = this.#tokens[this.#next++];
    return token ?? this.#fail("more of the expression");
  }

  #accept(text: string): boolean {
    if (this.#peek()?.text !== text) return false;
    this.#next++;
    return true;
  }

  #expect(text: string): void {
    const token = this.#take();
    if (token.text !== text) this.#fail(`'${text}'`, token);
  }

  #fail(wanted: string, token = this.#tokens[this.#next - 1]): never {
    const found = this.#next > this.#tokens.length ? undefined : token;
    const at = found?.at ?? this.#expr.length;
    throw new PromqlSyntaxError(
      this.#expr,
      at,
      `expected ${wanted}, found ${found ? `'${found.text}'` : "the end"}`,
    );
  }
}

/**
 * The metrics `expr` selects, each with the labels it names on it, in the order they appear; a
 * metric selected twice appears twice. Throws {@link PromqlSyntaxError} on what is not PromQL.
 *
 * @example
 * ```ts
 * metricReferences('sum by (controller) (rate(controller_runtime_reconcile_total{job="widgets"}[5m]))');
 * // [{ metric: "controller_runtime_reconcile_total", labels: ["job", "controller"] }]
 * ```
 */
export function metricReferences(expr: string): MetricReference[] {
  return new Parser(expr).parse().map(({ metric, labels }) => ({ metric, labels: [...labels] }));
}
