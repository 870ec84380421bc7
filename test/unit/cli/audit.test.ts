// `flink-chatops audit verify FILE` (src/cli/audit.ts) on a real sealed chain written to a file: intact, edited,
// shortened, reordered, cut off, corrupted, starting late; run as installed and in process.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../../src/cli/audit.js';
import { sealEvent, type AuditAction, type AuditEvent } from '../../../src/domain/kit/audit/event.js';

const BIN = new URL('../../../bin/flink-chatops.js', import.meta.url).pathname;
const NO_STACK = /\n\s+at /;
const USAGE = 'usage: flink-chatops audit verify FILE\n       flink-chatops audit export [--since T] [--until T]';
const LIFE: AuditAction[] = ['requested', 'awaiting_approval', 'approved', 'queued', 'submitting', 'submitted'];

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function inProcess(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await audit(args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** Ten events of one operation's life, sealed into a chain, as JSON lines. */
function sealedChain(): string[] {
  const events: AuditEvent[] = [];
  for (let i = 0; i < 10; i++) {
    const action = i < LIFE.length ? (LIFE[i] as AuditAction) : i === 9 ? 'completed' : 'submitted';
    const draft = {
      id: `aud-${(0xa0 + i).toString(16).padStart(20, '0')}`,
      at: new Date(Date.UTC(2025, 2, 14, 9, i)).toISOString(),
      actor: { user: i === 2 ? 'U0LEAD1' : 'U0ALICE', team: 'T0ACME' },
      action,
      op: { id: 'op-k3j5h2m9q1', kind: 'scale', cluster: 'prod', namespace: 'streaming-prod', name: 'orders' },
      ...(action === 'submitted' && { change: { patch: { spec: { job: { parallelism: 8 } } }, generation: 4 + i } }),
    };
    events.push(sealEvent(draft, events.at(-1)));
  }
  return events.map((event) => JSON.stringify(event));
}

let dir: string;
const lines = sealedChain();
/** Writes `text` to a fresh file in the test's directory and returns its path. */
let n = 0;
async function exportFile(text: string): Promise<string> {
  const file = join(dir, `export-${++n}.jsonl`);
  await writeFile(file, text);
  return file;
}
const jsonl = (list: readonly string[]) => `${list.join('\n')}\n`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audit-verify-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('flink-chatops audit verify', () => {
  it('accepts an intact export as installed: exit 0 and one line with the count and the seq range', async () => {
    const file = await exportFile(jsonl(lines));
    const { code, stdout, stderr } = cli('audit', 'verify', file);
    expect(stderr).toBe('');
    expect(stdout).toBe(`${file}: 10 events, seq 1–10, chain intact\n`);
    expect(code).toBe(0);
  });

  it('refuses an edited line as installed: exit 1, the line and the reason on stderr, no stack trace', async () => {
    const edited = lines.map((line, i) => (i === 3 ? line.replace('"action":"queued"', '"action":"denied"') : line));
    expect(edited[3]).toContain('"action":"denied"');
    const file = await exportFile(jsonl(edited));
    const { code, stdout, stderr } = cli('audit', 'verify', file);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${file}: line 4: hash does not match its content (edited?)\n`);
  });

  it.each([
    ['a line removed', lines.filter((_, i) => i !== 5), 'line 6: seq 7 follows 5: 1 event missing'],
    [
      'two lines swapped',
      lines.map((line, i) => (i === 6 ? lines[7] : i === 7 ? lines[6] : line) as string),
      'line 7: seq 8 follows 6, and line 8 has seq 7: out of order (lines swapped?)',
    ],
    [
      'a line that is not JSON',
      [...lines.slice(0, 2), 'Mar 14 09:02 bot started', ...lines.slice(2)],
      'line 3: not JSON',
    ],
    [
      'a line that is JSON but no event',
      [...lines.slice(0, 8), '{"level":30,"msg":"hello"}', ...lines.slice(8)],
      'line 9: not an audit event: schema: missing',
    ],
  ])('refuses %s, naming the first bad line', async (_name, list, message) => {
    const { code, stdout, stderr } = await inProcess('verify', await exportFile(jsonl(list)));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  it('refuses a file whose final line was cut off', async () => {
    const whole = jsonl(lines);
    const file = await exportFile(whole.slice(0, whole.length - 40));
    const { code, stderr } = await inProcess('verify', file);
    expect(code).toBe(1);
    expect(stderr).toBe(`${file}: line 10: the event is cut off (a truncated file?)\n`);
  });

  it('accepts a valid chain that starts at seq 5, and Windows line ends', async () => {
    const late = await inProcess('verify', await exportFile(jsonl(lines.slice(4))));
    expect(late).toMatchObject({ code: 0, stderr: '' });
    expect(late.stdout).toMatch(/: 6 events, seq 5–10, chain intact\n$/);
    const crlf = await inProcess('verify', await exportFile(`${lines.join('\r\n')}\r\n`));
    expect(crlf.stdout).toMatch(/: 10 events, seq 1–10, chain intact\n$/);
  });

  it('refuses an empty file, and one that stops at a blank line with more events after it', async () => {
    const empty = await inProcess('verify', await exportFile(''));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(': line 1: no events (the file is empty)');
    const blank = await inProcess('verify', await exportFile(jsonl([...lines.slice(0, 3), '', ...lines.slice(3)])));
    expect(blank.stderr).toContain(': line 4: a blank line before more events');
  });

  it('a missing file or a directory: exit 1 with a clear message and no stack trace', async () => {
    const missing = cli('audit', 'verify', join(dir, 'nope.jsonl'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`flink-chatops audit verify: ${join(dir, 'nope.jsonl')}: no such file\n`);
    const directory = await inProcess('verify', dir);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toBe(`flink-chatops audit verify: ${dir}: is a directory, not a file\n`);
    expect(`${missing.stderr}${directory.stderr}`).not.toMatch(NO_STACK);
  });

  it.each([
    [[], 'name a command: verify or export'],
    [['exports'], 'unknown command "exports" (the commands are verify and export)'],
    [['verify'], 'name the export file'],
    [['verify', 'a.jsonl', 'b.jsonl'], 'expected exactly one FILE'],
    [['verify', '--since', '1d', 'a.jsonl'], 'unknown option --since'],
  ])('refuses the usage %j with a message and the usage line', async (args, message) => {
    const { code, stdout, stderr } = await inProcess(...args);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(`flink-chatops audit: ${message}\n${USAGE}\n`);
  });

  it('prints its help, and the CLI lists it among the subcommands', async () => {
    for (const args of [['--help'], ['verify', '-h'], ['export', '--help']]) {
      const help = await inProcess(...args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: flink-chatops audit verify FILE\n {7}flink-chatops audit export /);
      expect(help.stdout).toContain('\nverify: checks an audit export');
      expect(help.stdout).toContain('\nexport: writes the events the store still holds');
    }
    const main = cli('--help');
    expect(main.stdout).toMatch(
      /^ {2}flink-chatops audit verify FILE +check an audit export's order, gaps and hash chain$/m,
    );
    expect(main.stdout).toMatch(
      /^ {2}flink-chatops audit export \[--since T\] \[--until T\]\n +write the stored audit events to stdout/m,
    );
  });
});
