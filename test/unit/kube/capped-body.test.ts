// Flink REST answers are read up to a cap (docs/deep-verification.md#bounded-answers): the real client-node through
// ClientNodeFlinkRest against a real HTTP server standing in for the API server's service proxy, answering in chunks
// without a Content-Length, so only reading can tell how long the answer is.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeConfigFor } from '@flink-chatops/sim/testing/kube';
import { ClientNodeFlinkRest, REST_ANSWER_LIMIT } from '../../../src/kube/flink-rest.js';

const CHUNK = Buffer.alloc(64 * 1024, 'a');
let server: http.Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server?.closeAllConnections();
});

/** Answers `{"jid":"aaa…"}` of `bytes`, chunked; `sent` resolves with what it wrote when the answer ends or is closed. */
async function serve(bytes: number): Promise<{ url: string; sent: Promise<{ written: number; finished: boolean }> }> {
  let report: (r: { written: number; finished: boolean }) => void = () => {};
  const sent = new Promise<{ written: number; finished: boolean }>((resolve) => (report = resolve));
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    let written = 0;
    res.on('close', () => report({ written, finished: res.writableFinished }));
    const more = (): void => {
      while (written < bytes) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.write('{"jid":"');
    more();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server?.address() as AddressInfo).port}`, sent };
}

describe('ClientNodeFlinkRest reads an answer up to REST_ANSWER_LIMIT', () => {
  it('a 32 MB chunked answer: too-large, "cut at 4 MB", the connection closed long before the end', async () => {
    const { url, sent } = await serve(32 * 1024 * 1024);
    const rest = new ClientNodeFlinkRest(kubeConfigFor(url), { timeoutMs: 10_000 });
    const answer = await rest.get('streaming-dev', 'orders', '/jobs/overview');
    expect(answer).toEqual({ ok: false, reason: 'too-large', message: 'the Flink REST answer was cut at 4 MB' });
    const { written, finished } = await sent;
    expect(finished).toBe(false);
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('an answer under the cap is read and parsed as before', async () => {
    const { url } = await serve(REST_ANSWER_LIMIT - 2 * CHUNK.length);
    const rest = new ClientNodeFlinkRest(kubeConfigFor(url), { timeoutMs: 10_000 });
    const answer = await rest.get('streaming-dev', 'orders', '/jobs/overview');
    expect(answer.ok).toBe(true);
    expect((answer.ok ? answer.value : {}) as { jid?: string }).toEqual({
      jid: 'a'.repeat(REST_ANSWER_LIMIT - 2 * CHUNK.length),
    });
  });
});
