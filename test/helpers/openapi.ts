// Reading the published OpenAPI document in tests.
/** An OpenAPI document with every `#/components/schemas/…` reference replaced by the schema it
 *  names, for tests that read a schema where an operation uses it. */
export function inlineComponents<T>(doc: T): T {
  const schemas = (doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return inline(schemas[ref.slice('#/components/schemas/'.length)]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  return inline(doc) as T;
}
