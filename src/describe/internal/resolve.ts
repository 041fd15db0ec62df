/**
 * From `<kind>/<name>` to the resource it names, as `kubectl` reads its arguments: the resource
 * part is a kind, plural, singular or short name in any case (`Deployment`, `deployments`,
 * `deploy`), optionally qualified by its group (`deployments.apps`) or version and group
 * (`deployments.v1.apps`). Among several matches, the first in discovery's order wins: the core
 * group first, then groups by priority, each group's preferred version first.
 */
import type { ServedResource } from "../../client/index.ts";
import { InvalidTargetError, UnknownResourceError } from "../errors.ts";

/** The parts of a target. */
export interface Target {
  /** The resource as given, e.g. `deployments.apps`. */
  readonly resource: string;
  readonly name: string;
}

/** Splits `<kind>/<name>`; rejects anything else with {@link InvalidTargetError}. */
export function parseTarget(target: string): Target {
  const parts = target.split("/");
  const [resource, name] = parts;
  if (parts.length !== 2 || !resource || !name) throw new InvalidTargetError(target);
  return { resource, name };
}

/** The served resource `resource` names; {@link UnknownResourceError} when none does. */
export function resolveResource(served: readonly ServedResource[], resource: string): ServedResource {
  const dot = resource.indexOf(".");
  const name = (dot < 0 ? resource : resource.slice(0, dot)).toLowerCase();
  const qualifier = dot < 0 ? undefined : resource.slice(dot + 1).toLowerCase();
  const found = served.find((r) => namedBy(r, name) && qualifiedBy(r, qualifier));
  if (!found) throw new UnknownResourceError(resource);
  return found;
}

function namedBy(r: ServedResource, name: string): boolean {
  return (
    r.type.plural === name ||
    r.singular === name ||
    r.type.kind.toLowerCase() === name ||
    r.shortNames.includes(name)
  );
}

/** No qualifier, or the resource's group, or its `version.group`. */
function qualifiedBy(r: ServedResource, qualifier: string | undefined): boolean {
  return qualifier === undefined || qualifier === r.group || qualifier === `${r.version}.${r.group}`;
}
