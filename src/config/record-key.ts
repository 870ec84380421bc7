// The operation records' signing key (docs/deployment.md#record-signing): HMAC-SHA256 over a record's sealed content.
// The key's bytes stay inside this object: it prints, logs and serialises as a placeholder.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';

export const MIN_RECORD_KEY_LENGTH = 32;
const SHOWN = '[RECORD_SIGNING_KEY]';

export class RecordKey {
  readonly #bytes: Buffer;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /** From RECORD_SIGNING_KEY (or its `_FILE`), as written. */
  static fromSecret(text: string): RecordKey {
    if (text.length < MIN_RECORD_KEY_LENGTH)
      throw new Error(`RECORD_SIGNING_KEY: must be at least ${MIN_RECORD_KEY_LENGTH} characters`);
    return new RecordKey(Buffer.from(text, 'utf8'));
  }

  static random(): RecordKey {
    return new RecordKey(randomBytes(32));
  }

  /** Lowercase hex HMAC-SHA256 of `text` (UTF-8). */
  mac(text: string): string {
    return createHmac('sha256', this.#bytes).update(text, 'utf8').digest('hex');
  }

  /** Whether `mac` is this key's MAC of `text`, compared in constant time. */
  verify(text: string, mac: unknown): boolean {
    if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
    return timingSafeEqual(Buffer.from(this.mac(text), 'hex'), Buffer.from(mac, 'hex'));
  }

  toJSON(): string {
    return SHOWN;
  }

  toString(): string {
    return SHOWN;
  }

  [inspect.custom](): string {
    return SHOWN;
  }
}

let processKey: RecordKey | undefined;

/**
 * The key of a process started without RECORD_SIGNING_KEY (the sandbox, tests): random, one per process, so the bot and
 * worker roles of that process agree and nothing outside it can seal a record (docs/deployment.md#record-signing).
 */
export function processRecordKey(): RecordKey {
  processKey ??= RecordKey.random();
  return processKey;
}

/** A harness that starts roles in other processes too gives them all one key (test support and the sandbox). */
export function useProcessRecordKey(key: RecordKey): void {
  processKey = key;
}
