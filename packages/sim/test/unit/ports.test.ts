// freePort hands out ports a child can bind, away from where the kernel picks outgoing connections' local ports.
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ephemeralLow, freePort } from '../../src/ports.js';

async function listen(port: number): Promise<Server> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

describe('freePort', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ports-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads the low end of the ephemeral range, and nothing where the file is missing or odd', async () => {
    const file = join(dir, 'range');
    await writeFile(file, '40000\t60999\n');
    expect(await ephemeralLow(file)).toBe(40_000);
    await writeFile(file, 'garbage\n');
    expect(await ephemeralLow(file)).toBeUndefined();
    expect(await ephemeralLow(join(dir, 'absent'))).toBeUndefined();
  });

  it('picks below the ephemeral range, a port a server can then bind', async () => {
    const file = join(dir, 'range-low');
    await writeFile(file, '32768\t60999\n');
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort(file)));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(32_768);
    }
    const server = await listen(ports[0] as number);
    server.close();
    await once(server, 'close');
  });

  it('falls back to a port the kernel picks where the range is unknown or leaves no room below it', async () => {
    const narrow = join(dir, 'range-narrow');
    await writeFile(narrow, '10500\t60999\n');
    for (const file of [join(dir, 'absent'), narrow]) {
      const port = await freePort(file);
      const server = await listen(port);
      expect((server.address() as { port: number }).port).toBe(port);
      server.close();
      await once(server, 'close');
    }
  });
});
