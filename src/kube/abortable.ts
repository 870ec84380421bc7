// A client-node call that ends when its AbortSignal does (a deadline, the caller's cancellation, or both): the request
// options the Kubernetes adapters pass to a generated API method when the call needs nothing else of the request.
import {
  Observable,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';

export interface AbortableOptions {
  middleware: ObservableMiddleware[];
  middlewareMergeStrategy: 'append';
}

/** Options that set `signal` on the request, appended to the client's own middleware. */
export function abortable(signal: AbortSignal): AbortableOptions {
  const middleware: ObservableMiddleware = {
    pre: (ctx: RequestContext) => {
      ctx.setSignal(signal);
      return new Observable(Promise.resolve(ctx));
    },
    post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' };
}
