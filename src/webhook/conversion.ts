/**
 * Conversion between a kind's versions, hub and spoke as kubebuilder has it: one version is the
 * hub (by default the storage version), and each other version, a spoke, converts to and from the
 * hub. An object goes spoke → hub → spoke; to its own version it is returned as is.
 */
import { groupOf, type KubeObject, type ResourceType } from "../api/index.ts";
import { restoreFields, stashFields } from "./conversion-data.ts";
import { ConversionError, WebhookDeclarationError } from "./errors.ts";

/**
 * How one spoke version converts to and from the hub. The converters get a copy they may change;
 * the framework sets `apiVersion`, and keeps `metadata` but for the labels and annotations a
 * converter sets (the apiserver refuses other metadata changes).
 */
export interface SpokeConversion<S extends KubeObject = KubeObject, H extends KubeObject = KubeObject> {
  toHub(spoke: S): H;
  fromHub(hub: H): S;
  /**
   * The hub's fields this spoke cannot express, or only in part, as dotted paths (`spec.tls`):
   * kept in the spoke's `kubeloop.dev/conversion-data` annotation on the way out and restored on
   * the way back, so that a round trip through the spoke loses nothing. A field the spoke shows
   * part of (v1alpha1's `host` of v1's `hosts`) is restored only while the spoke still shows that
   * part as it did: changed through the spoke, it is what the spoke converts to (the edit wins).
   */
  readonly lacks?: readonly string[];
}

/** Options of {@link conversion}. */
export interface ConversionOptions<H extends KubeObject> {
  /** The hub version; default the kind's storage version. */
  readonly hub?: string;
  /** Every other version, each with its converters. */
  readonly spokes: Readonly<Record<string, SpokeConversion<KubeObject, H>>>;
}

/** A kind with the versions `defineKind` lists, when it has them. */
export type VersionedKind<T extends KubeObject = KubeObject> = ResourceType<T> & {
  readonly versions?: readonly {
    readonly name: string;
    readonly served: boolean;
    readonly storage: boolean;
  }[];
};

/** A declared conversion, served at `/convert` by a `WebhookServer`. */
export interface ConversionWebhook {
  readonly type: "conversion";
  readonly path: "/convert";
  readonly resource: ResourceType;
  readonly group: string;
  readonly hub: string;
  /** Converts `obj` to `apiVersion`; throws {@link ConversionError} when it cannot. */
  convert(obj: KubeObject, apiVersion: string): KubeObject;
}

function versionOf(apiVersion: string): string {
  return apiVersion.split("/").at(-1) as string;
}

/** `converted` as `apiVersion`, with `input`'s metadata but for the labels and annotations the converter set. */
function settle(converted: KubeObject, input: KubeObject, apiVersion: string): KubeObject {
  const { labels, annotations } = converted.metadata ?? {};
  const metadata = { ...input.metadata, ...(labels && { labels }), ...(annotations && { annotations }) };
  return { ...converted, apiVersion, kind: input.kind, metadata };
}

function checkVersions(name: string, kind: VersionedKind, hub: string, spokes: readonly string[]): void {
  const fail = (problem: string, fix: string) => {
    throw new WebhookDeclarationError(`conversion of ${name}`, problem, fix);
  };
  if (spokes.includes(hub)) fail(`the hub ${hub} is also a spoke`, "list only the other versions as spokes");
  if (!kind.versions) return;
  const declared = kind.versions.map((v) => v.name);
  for (const version of [hub, ...spokes]) {
    if (!declared.includes(version)) {
      fail(`the kind has no version ${version}`, `use one of its versions: ${declared.join(", ")}`);
    }
  }
  for (const { name: version, served } of kind.versions) {
    if (served && version !== hub && !spokes.includes(version)) {
      fail(`version ${version} is served but has no spoke`, `add spokes.${version} with toHub and fromHub`);
    }
  }
}

/** Converts objects of one kind through its hub. */
class HubAndSpokes {
  readonly #name: string;
  readonly #group: string;
  readonly #hub: string;
  readonly #spokes: ReadonlyMap<string, SpokeConversion>;

  constructor(name: string, group: string, hub: string, spokes: ReadonlyMap<string, SpokeConversion>) {
    this.#name = name;
    this.#group = group;
    this.#hub = hub;
    this.#spokes = spokes;
  }

  #spoke(version: string): SpokeConversion {
    const found = this.#spokes.get(version);
    if (found) return found;
    const known = [this.#hub, ...this.#spokes.keys()].join(", ");
    throw new ConversionError(`${this.#name} has no version ${version}: it converts ${known}`);
  }

  #toHub(obj: KubeObject): KubeObject {
    const from = versionOf(obj.apiVersion);
    if (from === this.#hub) return obj;
    const { toHub, lacks = [] } = this.#spoke(from);
    const hub = settle(toHub(structuredClone(obj)), obj, `${this.#group}/${this.#hub}`);
    return restoreFields(hub, obj, lacks);
  }

  #fromHub(hub: KubeObject, apiVersion: string): KubeObject {
    const to = versionOf(apiVersion);
    if (to === this.#hub) return hub;
    const { fromHub, toHub, lacks = [] } = this.#spoke(to);
    const spoke = settle(fromHub(structuredClone(hub)), hub, apiVersion);
    // What the spoke shows of each field it lacks: the field as the spoke converts back.
    const shown = lacks.length > 0 ? toHub(structuredClone(spoke)) : spoke;
    return stashFields(spoke, hub, lacks, shown);
  }

  /** `obj` as `apiVersion` (itself when it is that version already). */
  convert(obj: KubeObject, apiVersion: string): KubeObject {
    if (groupOf(obj.apiVersion) !== this.#group || groupOf(apiVersion) !== this.#group) {
      throw new ConversionError(
        `${this.#name} cannot convert a ${obj.kind} of ${obj.apiVersion} to ${apiVersion}`,
      );
    }
    if (obj.apiVersion === apiVersion) return obj;
    try {
      return this.#fromHub(this.#toHub(obj), apiVersion);
    } catch (err) {
      if (err instanceof ConversionError) throw err;
      const { namespace, name } = obj.metadata;
      throw new ConversionError(
        `converting ${this.#name} ${namespace ? `${namespace}/` : ""}${name} from ${obj.apiVersion} to ` +
          `${apiVersion}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }
}

/**
 * Declares the conversions of `kind` between its versions, through a hub. Each served version
 * other than the hub must have a spoke (checked when `kind` comes from `defineKind`).
 *
 * @example
 * ```ts
 * export const proxyConversion = conversion(MyProxy, {
 *   hub: "v1",
 *   spokes: {
 *     v1alpha1: {
 *       toHub: (old: MyProxyV1alpha1): MyProxyV1 => ({ ...old, spec: { hosts: [old.spec.host] } }),
 *       fromHub: (hub: MyProxyV1): MyProxyV1alpha1 => ({ ...hub, spec: { host: hub.spec.hosts[0] ?? "" } }),
 *       lacks: ["spec.hosts"],
 *     },
 *   },
 * });
 * ```
 */
export function conversion<T extends KubeObject, H extends KubeObject = T>(
  kind: VersionedKind<T>,
  options: ConversionOptions<H>,
): ConversionWebhook {
  const group = groupOf(kind.apiVersion);
  const name = `${kind.kind}.${group}`;
  const hub = options.hub ?? kind.versions?.find((v) => v.storage)?.name;
  if (hub === undefined) {
    throw new WebhookDeclarationError(
      `conversion of ${name}`,
      "no hub version",
      "name it: { hub: 'v1', spokes }",
    );
  }
  checkVersions(name, kind, hub, Object.keys(options.spokes));
  const spokes = new Map(Object.entries(options.spokes) as [string, SpokeConversion][]);
  const converter = new HubAndSpokes(name, group, hub, spokes);
  const convert = (obj: KubeObject, apiVersion: string) => converter.convert(obj, apiVersion);
  return Object.freeze({ type: "conversion", path: "/convert", resource: kind, group, hub, convert });
}
