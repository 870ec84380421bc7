// Slack gives every top-level block posted without a `block_id` one of its own (a few random characters), keeps it
// with the message or view, and sends it back in each block_actions payload: the simulated Slack does the same, so a
// click on a block the app left unnamed still names its block (docs/development.md#block-ids-as-slack-fills-them-in).
import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_CHARS = 5;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function generated(taken: Set<string>): string {
  for (;;) {
    const id = [...randomBytes(ID_CHARS)].map((b) => ALPHABET[b % ALPHABET.length]).join('');
    if (!taken.has(id)) return id;
  }
}

/** A copy of `blocks` where every block without a string `block_id` has a fresh one, unique among them. */
export function withBlockIds(blocks: unknown[]): unknown[] {
  const taken = new Set<string>();
  for (const b of blocks) if (isObj(b) && typeof b.block_id === 'string') taken.add(b.block_id);
  return blocks.map((b) => {
    if (!isObj(b) || typeof b.block_id === 'string') return b;
    const id = generated(taken);
    taken.add(id);
    return { ...b, block_id: id };
  });
}
