/**
 * `wallet_namespace` (chainq's extension, docs/labels.md): on every route
 * with a label or category filter, those filters also match the caller's
 * own labels of that namespace.
 */
import type { Endpoint, Params } from './types.ts';

export function walletNamespaceParams(e: Endpoint): Params {
  const labelled = Object.values(e.filters).some((f) => f.kind === 'label' || f.kind === 'category');
  if (!labelled) return {};
  return {
    wallet_namespace: {
      type: 'string',
      description: "One of your label namespaces (PUT /v1/labels/{namespace}): the label and category filters then also match its labels. Another key's namespace is 404.",
    },
  };
}
