/** Schema helpers shared by every area's schemas (JSON Schema through TypeBox; no transport). */
import { Type, type TLiteral, type TSchema, type TUnion } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A date-time string in the document; presenters may return Date objects (serialized as ISO 8601). */
export const DateTime = (description?: string) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });

/** A union of string literals, e.g. `Literals('org', 'private')`. */
export function Literals<const T extends readonly [string, ...string[]]>(
  ...values: T
): TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as never;
}

/** The `{id}` path parameter most operations take. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

/** Data release a resource was created or refreshed against (spec 2). */
export const DataReleaseRefSchema = Type.Object(
  { major: Type.Integer({ minimum: 1 }), minor: Type.Integer({ minimum: 0 }) },
  { description: 'Data release current when the resource was created or last refreshed' },
);

/** Page of a newest-first list. */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Page size (default 25, max 100)' })),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'next_cursor of the previous page' })),
};

/** The empty body of a 204 answer. */
export const NoContent = Type.Null({ description: 'No content' });
