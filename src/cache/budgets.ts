/**
 * Per-kind budgets for the heap an operator's caches hold, against the running estimate each
 * informer keeps of its store (`Informer.bytes`). A kind's total is the sum over every
 * informer of it (each scope, each shard held); crossing its budget is told once, and told again
 * once the total is back to 90 % of the budget (so a total hovering at the budget is not told of
 * at every event).
 */
import type { ResourceType } from "../api/index.ts";
import { InvalidCacheBudgetError } from "./errors.ts";
import type { InformerMetrics } from "./informer.ts";

/** Heap budgets in bytes, keyed by `apiVersion/kind`, e.g. `{ "v1/Pod": 512 * 2 ** 20 }`. */
export type CacheBudgets = Readonly<Record<string, number>>;

/** A kind's cache went over its budget, or back under it. */
export interface BudgetCrossing {
  /** The kind. */
  type: ResourceType;
  /** The estimated heap bytes of every informer of the kind. */
  bytes: number;
  /** The budget, in bytes. */
  budget: number;
  /** True when it went over, false when back under. */
  exceeded: boolean;
}

/** Back under the budget once the total is this fraction of it. */
const backUnder = 0.9;

/** Sums the estimated bytes of the informers of each budgeted kind and tells when a budget is crossed. */
export class BudgetWatch {
  readonly #budgets: CacheBudgets;
  readonly #onCrossing: (crossing: BudgetCrossing) => void;
  readonly #totals = new Map<string, number>();
  readonly #over = new Set<string>();

  /** Throws {@link InvalidCacheBudgetError} for a budget that is not a positive number of bytes. */
  constructor(budgets: CacheBudgets, onCrossing: (crossing: BudgetCrossing) => void) {
    for (const [kind, budget] of Object.entries(budgets))
      if (!(Number.isFinite(budget) && budget > 0)) throw new InvalidCacheBudgetError(kind, budget);
    this.#budgets = budgets;
    this.#onCrossing = onCrossing;
  }

  /**
   * `hooks` of one informer of `type`, whose `storeBytes` also counts that informer's part of the
   * kind's total; `hooks` unchanged for a kind without a budget.
   */
  watch(hooks: InformerMetrics, type: ResourceType): InformerMetrics {
    const kind = `${type.apiVersion}/${type.kind}`;
    const budget = this.#budgets[kind];
    if (budget === undefined) return hooks;
    let last = 0;
    return {
      ...hooks,
      storeBytes: (bytes) => {
        hooks.storeBytes?.(bytes);
        const total = (this.#totals.get(kind) ?? 0) + bytes - last;
        last = bytes;
        this.#totals.set(kind, total);
        this.#check(type, kind, total, budget);
      },
    };
  }

  #check(type: ResourceType, kind: string, bytes: number, budget: number): void {
    const over = this.#over.has(kind);
    if (over ? bytes > budget * backUnder : bytes <= budget) return;
    if (over) this.#over.delete(kind);
    else this.#over.add(kind);
    this.#onCrossing({ type, bytes, budget, exceeded: !over });
  }
}
