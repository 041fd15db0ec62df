/**
 * The live set of fault rules. Rules are added and removed while requests are in flight: a watch
 * stream looks the rules up again for every event, so a rule added or removed mid-stream takes
 * effect on the next event. Whether a rule applies to a request is decided once per request (per
 * stream for watches) and remembered, so `times` and `probability` count requests, not events.
 */

import { ProxyRuleError } from "./errors.ts";
import { type Fault, hasRequestFault, hasStreamFault, validateFault } from "./fault.ts";
import { type Match, matchesRequest, seededRandom } from "./match.ts";
import type { RequestInfo } from "./request-info.ts";

/** A rule in place, as returned by {@link FaultProxy.inject}. */
export interface RuleHandle {
  readonly match: Readonly<Match>;
  readonly fault: Readonly<Fault>;
  /** How many requests (watch streams once each) the rule has applied to so far. */
  readonly hits: number;
  /** False once removed. */
  readonly active: boolean;
  /** Takes the rule out: later requests and events are no longer affected; blackholed requests go on. */
  remove(): void;
}

/** A rule inside the proxy. */
export class Rule implements RuleHandle {
  readonly match: Readonly<Match>;
  readonly fault: Readonly<Fault>;
  readonly actsOnRequest: boolean;
  readonly actsOnStream: boolean;
  readonly removed: Promise<void>;
  #hits = 0;
  #active = true;
  readonly #random: () => number;
  readonly #release: () => void;
  readonly #detach: (rule: Rule) => void;

  constructor(match: Match, fault: Fault, seed: number, detach: (rule: Rule) => void) {
    this.match = { ...match };
    this.fault = { ...fault };
    this.actsOnRequest = hasRequestFault(fault);
    this.actsOnStream = hasStreamFault(fault);
    this.#random = seededRandom(seed);
    this.#detach = detach;
    let release = () => {};
    this.removed = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#release = release;
  }

  get hits(): number {
    return this.#hits;
  }

  get active(): boolean {
    return this.#active;
  }

  /** Decides whether the rule applies to a request, spending one of its `times` when it does. */
  fire(info: RequestInfo): boolean {
    if (!this.#active || !matchesRequest(this.match, info)) return false;
    if (this.match.times !== undefined && this.#hits >= this.match.times) return false;
    if (this.match.probability !== undefined && this.#random() >= this.match.probability) return false;
    this.#hits++;
    return true;
  }

  remove(): void {
    if (!this.#active) return;
    this.#active = false;
    this.#detach(this);
    this.#release();
  }
}

/** The rules of one proxy, in the order they were added. */
export class RuleSet {
  #rules: Rule[] = [];
  #added = 0;
  readonly #seed: number;
  readonly #listeners: ((rule: Rule) => void)[] = [];

  constructor(seed: number) {
    this.#seed = seed;
  }

  /** Validates and adds a rule; throws {@link ProxyRuleError} when it cannot be applied. */
  add(match: Match, fault: Fault): Rule {
    validateMatch(match);
    validateFault(fault);
    const seed = (this.#seed + Math.imul(++this.#added, 0x9e3779b9)) >>> 0;
    const rule = new Rule(match, fault, seed, (r) => {
      this.#rules = this.#rules.filter((x) => x !== r);
    });
    this.#rules.push(rule);
    for (const listener of this.#listeners) listener(rule);
    return rule;
  }

  /** The rules in place now. */
  list(): readonly Rule[] {
    return this.#rules;
  }

  /** Removes every rule. */
  clear(): void {
    for (const rule of [...this.#rules]) rule.remove();
  }

  /** Calls `listener` with every rule added from now on. */
  onAdded(listener: (rule: Rule) => void): void {
    this.#listeners.push(listener);
  }
}

function validateMatch(match: Match): void {
  if (match.times !== undefined && !(Number.isInteger(match.times) && match.times >= 1)) {
    throw new ProxyRuleError("times must be a whole number >= 1");
  }
  const p = match.probability;
  if (p !== undefined && !(p >= 0 && p <= 1)) throw new ProxyRuleError("probability must be within 0..1");
}

/** Which rules apply to one request; each rule is decided at most once and the answer kept. */
export class Decisions {
  readonly #cache = new Map<Rule, boolean>();
  readonly #info: RequestInfo;

  constructor(info: RequestInfo) {
    this.#info = info;
  }

  /** True when `rule` is still in place and applies to this request. */
  applies(rule: Rule): boolean {
    let decided = this.#cache.get(rule);
    if (decided === undefined) {
      decided = rule.fire(this.#info);
      this.#cache.set(rule, decided);
    }
    return decided && rule.active;
  }

  /** The rules with request faults that apply, in order. */
  requestRules(rules: RuleSet): Rule[] {
    return rules.list().filter((r) => r.actsOnRequest && this.applies(r));
  }

  /** The rules with stream faults that apply, in order. */
  streamRules(rules: RuleSet): Rule[] {
    return rules.list().filter((r) => r.actsOnStream && this.applies(r));
  }
}
