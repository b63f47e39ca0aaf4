// The load settings' draft fields: the path (empty is none), the tokens drafted per pass within
// the settings module's bounds, and the fields off, with the reason, when the settings decode
// several sequences.
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { DEFAULT_RUN_SETTINGS, LIMITS } from '../../src-main/shared/settings/run-settings.js';
import { draftBlocked, draftMaxPatch, draftPathPatch } from '../lib/draft-settings.js';
import { DraftFields } from './DraftSettings.js';

const render = (s: Partial<typeof DEFAULT_RUN_SETTINGS> = {}) =>
  renderToStaticMarkup(<DraftFields settings={{ ...DEFAULT_RUN_SETTINGS, ...s }} onChange={() => {}} pick={async () => ''} />);
/** The opening tag of the element with this test id. */
const tag = (html: string, id: string) => new RegExp(`<[^>]*data-testid="${id}"[^>]*>`).exec(html)?.[0] ?? '';

describe('draft settings', () => {
  it("no draft by default: an empty path, the module's default tokens per pass, max and min off until a draft is set", () => {
    const html = render();
    expect(tag(html, 'setting-draft')).toContain('value=""');
    expect(tag(html, 'setting-draft')).not.toContain('disabled');
    expect(tag(html, 'setting-draft-max')).toContain(`value="${DEFAULT_RUN_SETTINGS.draftMax}"`);
    expect(tag(html, 'setting-draft-max')).toContain(`max="${LIMITS.draftTokens.max}"`);
    expect(tag(html, 'setting-draft-max')).toContain('disabled');
    expect(tag(html, 'setting-draft-min')).toContain(`value="${DEFAULT_RUN_SETTINGS.draftMin}"`);
    expect(html).not.toContain('setting-draft-clear');
    expect(html).not.toContain('setting-draft-note');
  });

  it('a draft set: its path, max and min on (min bounded by max), a button to clear it', () => {
    const html = render({ draft: '/m/d.gguf', draftMax: 5, draftMin: 2 });
    expect(tag(html, 'setting-draft')).toContain('value="/m/d.gguf"');
    expect(tag(html, 'setting-draft-max')).not.toContain('disabled');
    expect(tag(html, 'setting-draft-min')).toContain('max="5"');
    expect(tag(html, 'setting-draft-min')).toContain('value="2"');
    expect(html).toContain('data-testid="setting-draft-clear"');
  });

  it('off, with a note saying why, when the settings decode several sequences', () => {
    const html = render({ parallel: 2 });
    expect(tag(html, 'setting-draft')).toContain('disabled');
    expect(tag(html, 'setting-draft-max')).toContain('disabled');
    expect(html).toMatch(/data-testid="setting-draft-note">A draft model serves one sequence: it does not combine with 2 parallel sequences/);
  });

  it('what the fields change: a blank path is none, a lower max lowers min with it', () => {
    expect(draftPathPatch('  ')).toEqual({ draft: null });
    expect(draftPathPatch(' /m/d.gguf ')).toEqual({ draft: '/m/d.gguf' });
    expect(draftMaxPatch({ draftMin: 4 }, 2)).toEqual({ draftMax: 2, draftMin: 2 });
    expect(draftMaxPatch({ draftMin: 1 }, 6)).toEqual({ draftMax: 6, draftMin: 1 });
    expect(draftBlocked({ parallel: 1 })).toBeNull();
  });
});
