/**
 * `defineKind`: one TypeScript definition of a custom kind that is at once its `ResourceType`
 * (for the client, caches and controllers), its object type, its runtime spec validation and the
 * source of its CRD.
 */
import type { z } from "zod";
import type { CreatedFrom, KubeObject, ResourceType } from "../api/index.ts";
import { printerColumnsFor } from "./condition-schema.ts";
import { KindDefinitionError, SpecValidationError } from "./errors.ts";
import { checkGroup, checkKindName, checkLabel, pluralize } from "./names.ts";
import { refinementsOf } from "./outside-crd.ts";
import type { CelRule, ConditionSetLike, KindCondition, PrinterColumn } from "./types.ts";
import { type KindVersion, resolveVersions, type VersionOptions } from "./versions.ts";

/** What kubeloop adds to every kind's status: conditions and the reconciled generation. */
export interface KindStatusBase {
  conditions?: KindCondition[];
  observedGeneration?: number;
}

/** The status type of a kind with status schema `St` (or none). */
export type KindStatus<St extends z.ZodType | undefined> = (St extends z.ZodType ? z.output<St> : unknown) &
  KindStatusBase;

/** The object type of a kind: typed `spec` and `status` on top of the common object fields. */
export type KindObject<S extends z.ZodType, St extends z.ZodType | undefined = undefined> = KubeObject & {
  spec: z.output<S>;
  status?: KindStatus<St>;
};

/**
 * What a user writes to create an object of a kind: the spec's input type, where fields with a
 * `.default()` may be left out. `InputOf<typeof Kind>` names it.
 */
export type KindInput<S extends z.ZodType, St extends z.ZodType | undefined = undefined> = KubeObject & {
  spec: z.input<S>;
  status?: KindStatus<St>;
};

/** Options of {@link defineKind}. */
export interface KindOptions<S extends z.ZodType, St extends z.ZodType | undefined> {
  /** API group, a domain such as `loadtest.kubeloop.dev`. */
  readonly group: string;
  /** The primary version, e.g. `v1`; objects are typed after its schemas. */
  readonly version: string;
  /** CamelCase kind, e.g. `LoadTest`. */
  readonly kind: string;
  /** Plural resource name; default: the lower-case kind with English plural rules. */
  readonly plural?: string;
  readonly scope: "Namespaced" | "Cluster";
  /** Desired state. Use `.describe()` / `.meta()` for descriptions and markers. */
  readonly spec: S;
  /** Observed state, without `conditions` and `observedGeneration`: those are added for you. */
  readonly status?: St;
  /** The condition set the controller writes; gives the summary printer columns. */
  readonly conditions?: ConditionSetLike;
  /**
   * `kubectl get` columns after the summary condition columns; `Age` comes last unless listed
   * here (`AGE_COLUMN` from `kubeloop/schema`).
   */
  readonly printerColumns?: readonly PrinterColumn[];
  readonly shortNames?: readonly string[];
  /** Groups of resources this kind belongs to, e.g. `all`. */
  readonly categories?: readonly string[];
  /** CEL rules on the whole spec (nested fields take theirs from `withRules`/`.meta()`). */
  readonly validations?: readonly CelRule[];
  /** Description of the kind, shown by `kubectl explain`. */
  readonly description?: string;
  /** Further versions served next to the primary one. */
  readonly versions?: readonly VersionOptions[];
  /**
   * The longest `metadata.name` the apiserver admits, for a kind whose children's names (or label
   * values, at most 63 characters) are derived from it: a longer name is refused at creation
   * rather than leaving an object its controller can never converge.
   */
  readonly maxNameLength?: number;
}

/** A custom kind: a {@link ResourceType} plus everything needed to validate it and build its CRD. */
export interface Kind<
  S extends z.ZodType = z.ZodType,
  St extends z.ZodType | undefined = z.ZodType | undefined,
> extends ResourceType<KindObject<S, St>>,
    CreatedFrom<KindInput<S, St>> {
  readonly group: string;
  /** The primary version. */
  readonly version: string;
  readonly scope: "Namespaced" | "Cluster";
  readonly singular: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly description?: string;
  readonly specSchema: S;
  readonly statusSchema: St;
  readonly conditions?: ConditionSetLike;
  /** All printer columns of the primary version, generated ones included. */
  readonly printerColumns: readonly PrinterColumn[];
  /** All versions, primary first. */
  readonly versions: readonly KindVersion[];
  /** The longest `metadata.name` admitted, when the kind limits it. */
  readonly maxNameLength?: number;
  /**
   * Where the primary version's spec has refinements (`.refine()`, `.superRefine()`), e.g.
   * `.spec.url`: checks the CRD cannot carry, so the apiserver admits objects that fail them. The
   * kind's controller checks them before each reconcile (`parseSpec`): an object that fails them is
   * not reconciled, and its summary condition says why (reason `SpecInvalid`). A CEL rule
   * (`withRules`) makes the apiserver reject such objects instead.
   */
  readonly refinements: readonly string[];
  /** Validates and returns a spec (defaults applied); throws `SpecValidationError` when invalid. */
  parseSpec(input: unknown): z.output<S>;
  /** Validates a spec without throwing. */
  safeParseSpec(input: unknown): z.ZodSafeParseResult<z.output<S>>;
}

/** Any kind, whatever its schemas. */
export type AnyKind = Kind<z.ZodType, z.ZodType | undefined>;

/**
 * Defines a custom kind from zod schemas. The result is a frozen {@link ResourceType} whose
 * object type is inferred from the schemas, usable with the client and controllers as is, and the
 * input of `crdFor`. Names, versions and printer columns are checked here; schemas are converted
 * (and checked) by `crdFor`. A spec's refinements (`.refine()`, `.superRefine()`), which no CRD
 * can carry, are listed in `refinements` and checked by the kind's controller before each
 * reconcile; a transform (`.transform()`, `z.preprocess()`, `.trim()`, ...) or a `z.custom()` type
 * is refused with a `KindDefinitionError`, since the apiserver never runs it.
 *
 * @example
 * ```ts
 * const Widget = defineKind({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Widget",
 *   scope: "Namespaced",
 *   spec: z.object({ replicas: z.int().min(0).default(1) }),
 *   status: z.object({ readyReplicas: z.int().optional() }),
 *   conditions: WidgetConditions,
 * });
 * type Widget = ObjectOf<typeof Widget>; // the object type, named as the kind: spec.replicas: number
 * type WidgetInput = InputOf<typeof Widget>; // what creates one: spec.replicas?: number
 * ```
 */
export function defineKind<S extends z.ZodType, St extends z.ZodType | undefined = undefined>(
  options: KindOptions<S, St>,
): Kind<S, St> {
  checkNames(options);
  const printerColumns = printerColumnsFor(options.conditions, options.printerColumns ?? []);
  const versions = resolveVersions(
    options.kind,
    {
      name: options.version,
      spec: options.spec,
      ...(options.status === undefined ? {} : { status: options.status }),
      printerColumns: options.printerColumns ?? [],
      validations: options.validations ?? [],
    },
    options.versions,
  );
  for (const version of versions)
    checkPrinterColumns(options.kind, printerColumnsFor(options.conditions, version.printerColumns));
  // Every version's spec is refused a transform; the controller reads (and checks) the primary one.
  const [refinements = []] = versions.map((v) => refinementsOf(v.spec, options.kind, ".spec"));
  return Object.freeze({
    apiVersion: `${options.group}/${options.version}`,
    kind: options.kind,
    plural: options.plural ?? pluralize(options.kind),
    namespaced: options.scope === "Namespaced",
    group: options.group,
    version: options.version,
    scope: options.scope,
    singular: options.kind.toLowerCase(),
    listKind: `${options.kind}List`,
    shortNames: Object.freeze([...(options.shortNames ?? [])]),
    categories: Object.freeze([...(options.categories ?? [])]),
    ...(options.description === undefined ? {} : { description: options.description }),
    specSchema: options.spec,
    statusSchema: options.status as St,
    ...(options.conditions === undefined ? {} : { conditions: options.conditions }),
    printerColumns: Object.freeze(printerColumns),
    versions: Object.freeze(versions),
    ...(options.maxNameLength === undefined ? {} : { maxNameLength: options.maxNameLength }),
    refinements: Object.freeze(refinements),
    parseSpec: (input: unknown) => parseSpec(options.kind, options.spec, input),
    safeParseSpec: (input: unknown) => options.spec.safeParse(input),
  });
}

function parseSpec<S extends z.ZodType>(kindName: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map(
    (issue) => `.spec${issue.path.map(formatSegment).join("")}: ${issue.message}`,
  );
  throw new SpecValidationError(kindName, issues, result.error);
}

function formatSegment(segment: PropertyKey): string {
  return typeof segment === "number" ? `[${segment}]` : `.${String(segment)}`;
}

function checkNames(options: KindOptions<z.ZodType, z.ZodType | undefined>): void {
  checkKindName(options.kind);
  checkGroup(options.kind, options.group);
  if (options.plural !== undefined) checkLabel(options.kind, "plural", options.plural);
  for (const shortName of options.shortNames ?? []) checkLabel(options.kind, "short name", shortName);
  for (const category of options.categories ?? []) checkLabel(options.kind, "category", category);
}

function checkPrinterColumns(kindName: string, columns: readonly PrinterColumn[]): void {
  const names = new Set<string>();
  for (const column of columns) {
    if (!column.jsonPath.startsWith(".")) {
      throw new KindDefinitionError(
        kindName,
        `printer column ${column.name} has jsonPath "${column.jsonPath}"`,
        'start the JSONPath with ".", e.g. ".spec.replicas"',
      );
    }
    if (names.has(column.name)) {
      throw new KindDefinitionError(
        kindName,
        `printer column "${column.name}" appears twice (the summary condition and Reason columns are added for you, and Age unless listed)`,
        "rename or remove the duplicate column",
      );
    }
    names.add(column.name);
  }
}
