/** YAML output for generated manifests. */
import { stringify } from "yaml";

/**
 * Serialises objects as one YAML stream (documents separated by `---`). Strings YAML 1.1 would
 * read as booleans or numbers (`yes`, `on`, `0777`) are quoted, as Kubernetes' parser is YAML 1.1;
 * long strings are never folded and shared objects are never turned into anchors.
 */
export function toYaml(objects: readonly unknown[]): string {
  return objects
    .map((object) => stringify(object, { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false }))
    .join("---\n");
}
