/**
 * The versions of a kind: the primary one given to `defineKind` plus any others, with exactly one
 * storage version.
 */
import type { z } from "zod";
import { KindDefinitionError } from "./errors.ts";
import { checkLabel } from "./names.ts";
import type { CelRule, PrinterColumn } from "./types.ts";

/**
 * Another served version of a kind, declared next to the primary one (for example the older
 * `v1alpha1` while `v1` is current). Without a conversion webhook the apiserver converts between
 * versions by changing `apiVersion` only, so their schemas must be compatible.
 */
export interface VersionOptions {
  /** Version name, e.g. `v1beta1`. */
  readonly name: string;
  readonly spec: z.ZodType;
  readonly status?: z.ZodType;
  /** Served by the apiserver; default true. */
  readonly served?: boolean;
  /** Objects are persisted in this version; at most one version may say so (default: the primary). */
  readonly storage?: boolean;
  readonly deprecated?: boolean;
  /** Warning returned to clients using this version; only for deprecated versions. */
  readonly deprecationWarning?: string;
  /** Custom printer columns for this version; default: the kind's. */
  readonly printerColumns?: readonly PrinterColumn[];
  /** CEL rules on this version's spec; default: the kind's. */
  readonly validations?: readonly CelRule[];
}

/** A version of a kind as the CRD lists it. */
export interface KindVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
  readonly spec: z.ZodType;
  readonly status?: z.ZodType;
  readonly printerColumns: readonly PrinterColumn[];
  readonly validations: readonly CelRule[];
}

/** The primary version's settings, taken from the `defineKind` options. */
export interface PrimaryVersion {
  readonly name: string;
  readonly spec: z.ZodType;
  readonly status?: z.ZodType;
  readonly printerColumns: readonly PrinterColumn[];
  readonly validations: readonly CelRule[];
}

/**
 * Resolves all versions, primary first. Throws {@link KindDefinitionError} on a bad or duplicate
 * version name, more than one storage version, or a deprecation warning on a current version.
 */
export function resolveVersions(
  kindName: string,
  primary: PrimaryVersion,
  others: readonly VersionOptions[] = [],
): KindVersion[] {
  const marked = others.filter((version) => version.storage === true);
  if (marked.length > 1) {
    throw new KindDefinitionError(
      kindName,
      `versions ${marked.map((version) => version.name).join(", ")} are all marked storage: true`,
      "mark exactly one version as the storage version (the primary version is storage when none is marked)",
    );
  }
  const first: KindVersion = { ...primary, served: true, storage: marked.length === 0, deprecated: false };
  const rest = others.map((version) => resolveOther(kindName, version, primary));
  const all = [first, ...rest];
  for (const version of all) checkLabel(kindName, "version", version.name);
  const seen = new Set<string>();
  for (const { name } of all) {
    if (seen.has(name)) {
      throw new KindDefinitionError(
        kindName,
        `version ${name} is declared twice`,
        "give every version a unique name",
      );
    }
    seen.add(name);
  }
  return all;
}

function resolveOther(kindName: string, version: VersionOptions, primary: PrimaryVersion): KindVersion {
  if (version.deprecationWarning !== undefined && version.deprecated !== true) {
    throw new KindDefinitionError(
      kindName,
      `version ${version.name} has a deprecationWarning but is not deprecated`,
      "set deprecated: true or drop the warning",
    );
  }
  return {
    name: version.name,
    served: version.served ?? true,
    storage: version.storage === true,
    deprecated: version.deprecated === true,
    ...(version.deprecationWarning === undefined ? {} : { deprecationWarning: version.deprecationWarning }),
    spec: version.spec,
    ...(version.status === undefined ? {} : { status: version.status }),
    printerColumns: version.printerColumns ?? primary.printerColumns,
    validations: version.validations ?? primary.validations,
  };
}
