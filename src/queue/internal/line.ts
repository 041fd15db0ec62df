/** A key in a {@link Line}, with its value and neighbours. */
interface Node<V> {
  readonly key: string;
  readonly value: V;
  prev: Node<V> | undefined;
  next: Node<V> | undefined;
}

/**
 * Keys in the order they joined, each with a value: appending, removing any key and reading the
 * first are O(1). A `Set` keeps that order too, but in V8 reading its first entry after removals
 * from the front scans every entry removed since the table was last compacted, which makes a
 * long queue quadratic.
 */
export class Line<V> {
  readonly #nodes = new Map<string, Node<V>>();
  #head: Node<V> | undefined;
  #tail: Node<V> | undefined;

  /** Number of keys in the line. */
  get size(): number {
    return this.#nodes.size;
  }

  /** Appends `key`, which must not be in the line yet, with `value`. */
  push(key: string, value: V): void {
    const node: Node<V> = { key, value, prev: this.#tail, next: undefined };
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#nodes.set(key, node);
  }

  /** The first key and its value, if any. */
  first(): { readonly key: string; readonly value: V } | undefined {
    return this.#head;
  }

  /** The value of `key`, if it is in the line. */
  get(key: string): V | undefined {
    return this.#nodes.get(key)?.value;
  }

  /** Removes `key`, wherever it is in the line. */
  delete(key: string): void {
    const node = this.#nodes.get(key);
    if (!node) return;
    this.#nodes.delete(key);
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
  }

  /** Removes every key. */
  clear(): void {
    this.#nodes.clear();
    this.#head = undefined;
    this.#tail = undefined;
  }
}
