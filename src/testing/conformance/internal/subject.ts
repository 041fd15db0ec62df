/**
 * The operator under test as the kit sees it: its module and declaration, the kinds its
 * controllers reconcile (primaries) and own (outputs), the field managers it writes with, and the
 * spec's choices with their defaults filled in.
 */
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubeObject, ResourceType } from "../../../api/index.ts";
import { declarationsOf } from "../../../generate/index.ts";
import { loadOperator, type Operator } from "../../../operator/index.ts";
import { ConformanceError } from "../errors.ts";
import { type ConformanceSpec, type ConformanceTimings, defaultSettled, defaultTimings } from "../spec.ts";

/** A resolved conformance spec. */
export interface Subject {
  readonly spec: ConformanceSpec;
  /** Absolute path of the operator module. */
  readonly operatorPath: string;
  readonly operator: Operator;
  /** Kinds the operator's controllers reconcile. */
  readonly primaries: readonly ResourceType[];
  /** Kinds of the operator's outputs. */
  readonly outputs: readonly ResourceType[];
  /** Every kind the operator declares (reconciles, owns, watches) or defines. */
  readonly readKinds: readonly ResourceType[];
  /** Field managers of the operator's writes. */
  readonly fieldManagers: readonly string[];
  readonly settled: (obj: KubeObject) => boolean;
  readonly timings: Required<ConformanceTimings>;
}

/** `apiVersion/kind`, the identity of a kind. */
export const kindKey = (type: { apiVersion: string; kind: string }): string =>
  `${type.apiVersion}/${type.kind}`;

function unique(types: readonly ResourceType[]): ResourceType[] {
  const seen = new Map<string, ResourceType>();
  for (const type of types) if (!seen.has(kindKey(type))) seen.set(kindKey(type), type);
  return [...seen.values()];
}

function operatorPath(spec: ConformanceSpec): string {
  const path = spec.operator instanceof URL ? fileURLToPath(spec.operator) : spec.operator;
  return isAbsolute(path) ? path : resolve(spec.root ?? process.cwd(), path);
}

/** Loads the operator module and fills in the spec's defaults. */
export async function resolveSubject(spec: ConformanceSpec): Promise<Subject> {
  const path = operatorPath(spec);
  const operator = await loadOperator(path);
  const declarations = await declarationsOf(operator);
  if (declarations.length === 0) {
    throw new ConformanceError(`the operator in ${path} builds no controller in its setup()`);
  }
  const primaries = unique(declarations.map((d) => d.primary.type));
  const outputs = unique(spec.outputs ?? declarations.flatMap((d) => d.owns.map((owned) => owned.type)));
  return {
    spec,
    operatorPath: path,
    operator,
    primaries,
    outputs,
    readKinds: unique([
      ...declarations.flatMap((d) => [d.primary, ...d.owns, ...d.watches].map((w) => w.type)),
      ...operator.kinds,
    ]),
    fieldManagers: [operator.name, ...(spec.fieldManagers ?? [])],
    settled: spec.settled ?? defaultSettled,
    timings: { ...defaultTimings, ...spec.timings },
  };
}

/** True when `obj` is of one of `types`. */
export function isOfKind(obj: KubeObject, types: readonly ResourceType[]): boolean {
  return types.some((t) => t.apiVersion === obj.apiVersion && t.kind === obj.kind);
}
