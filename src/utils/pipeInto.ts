/**
 * Pipes a response body into a pass-through stage and ties the two together
 * as `stream.pipeline` does: an error in either, or the stage closing early
 * (the client left), destroys the other, so the engine's export upstream is
 * stopped. Without `pipeline` itself, which aborts an AbortController of its
 * own when each response finishes and so builds a DOMException, stack trace
 * included, for every answered request: measured on the main thread under
 * load (README "Performance").
 */
import type { Duplex, Readable } from 'node:stream';

export function pipeInto<T extends Duplex>(body: Readable, stage: T): T {
  body.pipe(stage);
  body.on('error', (e) => stage.destroy(e));
  const stopBody = () => {
    if (!body.destroyed) body.destroy();
  };
  stage.on('error', stopBody);
  stage.on('close', stopBody);
  return stage;
}
