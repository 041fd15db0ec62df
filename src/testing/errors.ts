import { KubeloopError } from "../errors/index.ts";

/** Text given as PromQL that is not PromQL. Code `KL_PROMQL_SYNTAX`. */
export class PromqlSyntaxError extends KubeloopError {
  /** The expression, and the offset in it where reading stopped. */
  readonly expr: string;
  readonly at: number;

  constructor(expr: string, at: number, problem: string) {
    super(
      "KL_PROMQL_SYNTAX",
      `PromQL: ${problem} at offset ${at} of \`${expr}\`. Fix: correct the expression there (check it in Prometheus' expression browser or with promtool).`,
    );
    this.expr = expr;
    this.at = at;
  }
}
