/**
 * Small validators for destination configs and secrets: every problem is collected, then reported at
 * once in a DestinationConfigError; unknown keys are refused so a typo never goes unnoticed.
 */
import { DestinationConfigError } from './errors.ts';

export class Checker {
  readonly issues: string[] = [];
  private readonly o: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly what: string,
    allowed: readonly string[],
  ) {
    if (value === null || value === undefined) value = {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.issues.push(`${what} must be an object`);
      value = {};
    }
    this.o = value as Record<string, unknown>;
    for (const key of Object.keys(this.o)) if (!allowed.includes(key)) this.issues.push(`${what}.${key} is not a known setting`);
  }

  string(key: string, opts: { required?: boolean; pattern?: RegExp; max?: number } = {}): string | undefined {
    const v = this.o[key];
    if (v === undefined || v === null || v === '') {
      if (opts.required) this.issues.push(`${this.what}.${key} is required`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.issues.push(`${this.what}.${key} must be a string`);
      return undefined;
    }
    if (v.length > (opts.max ?? 4096)) this.issues.push(`${this.what}.${key} is too long`);
    if (opts.pattern && !opts.pattern.test(v)) this.issues.push(`${this.what}.${key} has an invalid value`);
    return v;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const v = this.o[key];
    if (v === undefined || v === null) return undefined;
    if (!Number.isInteger(v) || (v as number) < min || (v as number) > max) {
      this.issues.push(`${this.what}.${key} must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return v as number;
  }

  boolean(key: string): boolean | undefined {
    const v = this.o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.issues.push(`${this.what}.${key} must be true or false`);
      return undefined;
    }
    return v;
  }

  done<T>(value: T): T {
    if (this.issues.length > 0) throw new DestinationConfigError(this.issues);
    return value;
  }
}

const PLACEHOLDER = /\{([a-z_]+)\}/g;
const NAME_PLACEHOLDERS = ['delivery_id', 'org_id', 'part'];

/**
 * A file or object name template: `{delivery_id}`, `{org_id}` and `{part}` (the part's file name,
 * e.g. part-00000.csv.gz). It must use {part}, so every part gets its own name.
 */
export function checkNameTemplate(c: Checker, key: string, fallback: string, allowSlash: boolean): string {
  const t = c.string(key, { max: 512 }) ?? fallback;
  const unknown = [...t.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((p) => !NAME_PLACEHOLDERS.includes(p));
  if (unknown.length > 0) c.issues.push(`${key} uses unknown placeholders: ${unknown.join(', ')}`);
  if (!t.includes('{part}')) c.issues.push(`${key} must contain {part}`);
  const literal = t.replace(PLACEHOLDER, 'x');
  const allowed = allowSlash ? /^[A-Za-z0-9._\-/]+$/ : /^[A-Za-z0-9._-]+$/;
  if (!allowed.test(literal) || literal.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    c.issues.push(`${key} may only hold letters, digits, . _ -${allowSlash ? ' and / between non-empty segments' : ''}`);
  }
  return t;
}

export function renderName(template: string, v: { delivery_id: string; org_id: string; part: string }): string {
  return template.replace(PLACEHOLDER, (_, p: keyof typeof v) => v[p]);
}
