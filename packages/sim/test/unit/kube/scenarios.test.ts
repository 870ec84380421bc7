// The knob list of the simulated operator: `incidents-after=<duration>` in operator seconds, refused without a
// readable duration, merged from the annotation and `setScenario` like every knob.
import { describe, expect, it } from 'vitest';
import {
  incidentsAfterSeconds,
  parseScenarioList,
  SCENARIO_ANNOTATION,
  ScenarioRegistry,
} from '../../../src/kube/scenarios.js';

const settingsOf = (annotation: string) =>
  new ScenarioRegistry().settings('ns', 'orders', { [SCENARIO_ANNOTATION]: annotation });

describe('incidents-after', () => {
  it('reads operator seconds: 90s, 2m, 1 min, a bare number', () => {
    expect(incidentsAfterSeconds(settingsOf('incidents-after=90s'))).toBe(90);
    expect(incidentsAfterSeconds(settingsOf('incidents-after=2m'))).toBe(120);
    expect(incidentsAfterSeconds(settingsOf('job-failure, incidents-after=1 min'))).toBe(60);
    expect(incidentsAfterSeconds(settingsOf('incidents-after=120'))).toBe(120);
    expect(incidentsAfterSeconds(settingsOf('job-failure'))).toBeUndefined();
  });

  it('refuses the bare name and an unreadable duration as unknown entries, keeping the rest', () => {
    expect(parseScenarioList('job-failure,incidents-after,incidents-after=soon')).toEqual({
      scenarios: ['job-failure'],
      entries: [{ scenario: 'job-failure' }],
      unknown: ['incidents-after', 'incidents-after=soon'],
    });
  });

  it('setScenario refuses it with a message that says a duration is needed, and changes nothing', () => {
    const registry = new ScenarioRegistry();
    registry.set('ns', 'orders', ['job-exceptions=2']);
    expect(() => registry.set('ns', 'orders', ['job-failure', 'incidents-after' as never])).toThrow(
      /^unknown scenario "incidents-after" \(incidents-after needs a duration: name=90s\); known: /,
    );
    expect([...registry.settings('ns', 'orders', undefined).scenarios]).toEqual(['job-exceptions']);
  });

  it('set programmatically, with an annotated value winning', () => {
    const registry = new ScenarioRegistry();
    registry.set('ns', 'orders', ['job-exceptions=3', 'incidents-after=120']);
    expect(incidentsAfterSeconds(registry.settings('ns', 'orders', undefined))).toBe(120);
    const annotated = registry.settings('ns', 'orders', { [SCENARIO_ANNOTATION]: 'incidents-after=30s' });
    expect(incidentsAfterSeconds(annotated)).toBe(30);
  });
});
