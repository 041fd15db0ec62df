/**
 * Untyped JSON Schema nodes while they are rewritten and checked, and the object paths used in
 * error messages (`.spec.ports[*].name`, `.spec.labels.*`).
 */

/** A JSON Schema node before it is known to be structural. */
export type Node = Record<string, unknown>;

/** True for a plain JSON object (a schema node), false for arrays, primitives and null. */
export function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The path of a property below `path`. */
export function propPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** The path of the items of the array at `path`. */
export function itemsPath(path: string): string {
  return `${path}[*]`;
}

/** The path of the values of the map at `path`. */
export function valuesPath(path: string): string {
  return `${path}.*`;
}

/** The path of a branch of `allOf`/`anyOf`/`oneOf` (index given) or `not`. */
export function branchPath(path: string, junction: string, index?: number): string {
  return index === undefined ? `${path}<${junction}>` : `${path}<${junction}[${index}]>`;
}

/** Turns a JSON Schema location (`["properties", "a", "items"]`) into an object path under `base`. */
export function pathFromSchemaLocation(base: string, location: readonly (string | number)[]): string {
  let path = base;
  for (let i = 0; i < location.length; i++) {
    const segment = location[i];
    if (segment === "properties") path = propPath(path, String(location[++i]));
    else if (segment === "items") path = itemsPath(path);
    else if (segment === "additionalProperties") path = valuesPath(path);
    else if (segment === "allOf" || segment === "anyOf" || segment === "oneOf") {
      path = branchPath(path, segment, Number(location[++i]));
    }
  }
  return path;
}
