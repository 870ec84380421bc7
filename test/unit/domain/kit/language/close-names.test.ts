// "Did you mean" for target names (src/domain/kit/language/close-names.ts): close, few, bounded.
import { describe, expect, it } from 'vitest';
import { closeNames, MAX_COMPARED } from '../../../../../src/domain/kit/language/close-names.js';

describe('closeNames', () => {
  const names = ['orders', 'orders-enricher', 'payments', 'clickstream', 'fraud-detection', 'ledger-export'];

  it('offers up to three names, closest first, and nothing for a name far from all', () => {
    expect(closeNames('ordrs', names)).toEqual(['orders']);
    expect(closeNames('order', names)).toEqual(['orders', 'orders-enricher']);
    expect(closeNames('paymnets', names)).toEqual(['payments']);
    expect(closeNames('order', ['orders', 'orderz', 'orders-a', 'orders-b', 'order-x'])).toHaveLength(3);
    expect(closeNames('zzzzzz', names)).toEqual([]);
    expect(closeNames('orders', ['orders'])).toEqual([]);
  });

  it('compares at most MAX_COMPARED names, however many there are', () => {
    const many = [...Array.from({ length: MAX_COMPARED }, (_, i) => `job-${i}-far-away-name`), 'orders'];
    expect(closeNames('ordrs', many)).toEqual([]);
    expect(closeNames('ordrs', many.slice(1))).toEqual(['orders']);
  });
});
