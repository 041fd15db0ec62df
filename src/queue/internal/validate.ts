import { InvalidQueueArgumentError } from "../errors.ts";

/** A lower bound for {@link requireNumber}: `value >= min`, or `value > min` when `exclusive`. */
export interface LowerBound {
  min: number;
  exclusive?: boolean;
}

/** Throws {@link InvalidQueueArgumentError} unless `value` is a finite number within `bound`. */
export function requireNumber(argument: string, value: number, bound?: LowerBound): void {
  const inRange = !bound || (bound.exclusive ? value > bound.min : value >= bound.min);
  if (Number.isFinite(value) && inRange) return;
  const range = bound ? ` ${bound.exclusive ? ">" : ">="} ${bound.min}` : "";
  throw new InvalidQueueArgumentError(argument, value, `a finite number${range}`);
}
