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

/**
 * The operator under test used kinds it does not declare (a forgotten `.owns()` or `.watches()`):
 * its tests pass on an admin kubeconfig while, deployed with the RBAC `kubeloop generate` derives
 * from its declarations, it is refused (403). Thrown by `startOperator`'s `stop()`. Code
 * `KL_UNDECLARED_KINDS`.
 */
export class UndeclaredKindsError extends KubeloopError {
  /** The kinds used without being declared, as `Kind (apiVersion)`. */
  readonly kinds: readonly string[];

  constructor(operator: string, kinds: readonly string[]) {
    super(
      "KL_UNDECLARED_KINDS",
      `the operator ${operator} used ${kinds.join(", ")} without declaring it, so the RBAC kubeloop generate writes ` +
        "will refuse it in a cluster (403) and no controller hears of its changes; declare each: .owns(Kind) on the " +
        "controller that creates it, .watches(Kind, map) on one that reads it, or permissions in defineOperator",
    );
    this.kinds = kinds;
  }
}
