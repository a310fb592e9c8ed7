/**
 * Label namespaces (docs/labels.md): PUT, GET and DELETE /v1/labels/{namespace}
 * and GET /v1/labels, free, scoped to the caller's key. Another key's
 * namespace answers 404 exactly like one that does not exist.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/apiError.ts';
import { encodeBody } from '../../output/encode.ts';
import { LABEL_LIMITS, deleteNamespace, listNamespaces, namespaceExists, namespaceName, notFound, parseLabelCsv, putNamespace } from '../../reference/userLabels.ts';
import type { Store } from '../../store/types.ts';

const PATH = '/v1/labels/:namespace';

function keyIdOf(request: FastifyRequest): string {
  // The auth hook of the /v1 scope has admitted a key.
  const id = request.apiKey?.id;
  if (!id) throw new Error('label routes need the auth plugin');
  return id;
}

/** A server on a read-only store (Redis mode) cannot store labels: say so rather than fail inside the engine. */
function assertWritable(store: Store): void {
  if (store.readOnly) {
    throw new ApiError('unavailable', 'this server opened the store read-only (shared metering with Redis), so label namespaces cannot be changed here; nothing was stored');
  }
}

function isCsv(header: string | undefined): boolean {
  return header?.split(';')[0]?.trim().toLowerCase() === 'text/csv';
}

export function registerLabelRoutes(v1: FastifyInstance, store: Store): void {
  // The CSV body as text, up to the documented size; anything larger is 400 invalid_body.
  v1.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: LABEL_LIMITS.bytes }, (_req, body, done) => done(null, body));

  v1.get('/v1/labels', { config: { engine: true } }, async (request) => ({ namespaces: await listNamespaces(store, keyIdOf(request)) }));

  v1.put<{ Params: { namespace: string } }>(PATH, { config: { engine: true } }, async (request, reply) => {
    const keyId = keyIdOf(request);
    const namespace = namespaceName(request.params.namespace);
    if (!isCsv(request.headers['content-type'])) {
      throw new ApiError('unsupported_media_type', 'send the labels as Content-Type: text/csv, with the header address,label,category[,network]');
    }
    const rows = parseLabelCsv(typeof request.body === 'string' ? request.body : '');
    assertWritable(store);
    const { created, info } = await putNamespace(store, keyId, namespace, rows);
    return reply.code(created ? 201 : 200).send({ status: 'success', ...info });
  });

  v1.get<{ Params: { namespace: string } }>(PATH, { config: { engine: true } }, async (request, reply) => {
    const keyId = keyIdOf(request);
    const namespace = namespaceName(request.params.namespace);
    if (!(await namespaceExists(store, keyId, namespace))) throw notFound(namespace);
    const csv = store.labelNamespaces.csvExport(keyId, namespace);
    const exp = await store.copyToStream(csv.sql, csv.params, 'csv');
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) exp.cancel();
    });
    const encoded = await encodeBody(exp, 'csv', `labels-${namespace}`);
    return reply.headers(encoded.headers).send(encoded.body);
  });

  v1.delete<{ Params: { namespace: string } }>(PATH, { config: { engine: true } }, async (request) => {
    const keyId = keyIdOf(request);
    const namespace = namespaceName(request.params.namespace);
    if (!(await namespaceExists(store, keyId, namespace))) throw notFound(namespace);
    assertWritable(store);
    if (!(await deleteNamespace(store, keyId, namespace))) throw notFound(namespace);
    return { status: 'success', namespace, deleted: true };
  });
}
