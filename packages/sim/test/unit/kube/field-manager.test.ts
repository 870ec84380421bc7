// The manager a write is attributed to, and the fieldManager values kube-apiserver refuses.
import { describe, expect, it } from 'vitest';
import { checkFieldManager, requestManager, userAgentManager } from '../../../src/kube/field-manager.js';
import { ApiError } from '../../../src/kube/store.js';

function refusal(fieldManager: string): ApiError {
  try {
    checkFieldManager(fieldManager, 'PatchOptions');
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('field manager', () => {
  it.each([
    ['node-fetch/1.0 (+https://github.com/bitinn/node-fetch)', 'node-fetch'],
    ['kubectl/v1.31.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['no-slash', 'no-slash'],
    ['bell\u0007ed/1', 'belled'],
    ['', ''],
  ])('User-Agent %j → %j', (agent, manager) => {
    expect(userAgentManager(agent)).toBe(manager);
  });

  it('cuts a long program name at 128 bytes', () => {
    expect(userAgentManager(`${'é'.repeat(100)}/1`)).toBe('é'.repeat(64));
  });

  it('prefers fieldManager to the User-Agent', () => {
    expect(requestManager(new URLSearchParams('fieldManager=flink-chatops'), 'node-fetch/1.0', 'PatchOptions')).toBe(
      'flink-chatops',
    );
    expect(requestManager(new URLSearchParams(), 'node-fetch/1.0', 'PatchOptions')).toBe('node-fetch');
  });

  it('refuses more than 128 bytes with 422 Invalid on the options', () => {
    expect(() => checkFieldManager('a'.repeat(128), 'CreateOptions')).not.toThrow();
    const error = refusal('a'.repeat(129));
    expect(error.code).toBe(422);
    expect(error.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: must have at most 128 bytes',
    );
    expect(error.details).toMatchObject({
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueTooLong', field: 'fieldManager' }],
    });
  });

  it('refuses a non-printable character, naming it and its byte position', () => {
    const error = refusal('bot\tone');
    expect(error.code).toBe(422);
    expect(error.message).toContain(
      'fieldManager: Invalid value: "bot\\tone": invalid character U+0009 (at position 3)',
    );
    expect(() => checkFieldManager('flink chatops ünïcode', 'PatchOptions')).not.toThrow();
  });
});
