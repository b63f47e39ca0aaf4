// Completion mode in the store: chosen from the model, remembered per conversation, sent with
// complete() as one running text, streamed into the continuation.
import { beforeEach, describe, expect, it } from 'vitest';
import type { EngineState } from '../../src-main/shared/api.js';
import type { GenerationResult } from '../../src-main/shared/worker-protocol.js';
import { setApi } from '../api.js';
import { fakeApi, type FakeApi } from './fake-api.test-util.js';
import { startStore, useStore } from './index.js';

let api: FakeApi;
let stop: () => void;

const result = (text: string): GenerationResult => ({
  promptTokens: [1],
  tokens: [2, 3],
  text,
  stopReason: 'max_tokens',
  reusedTokens: 0,
  timings: { promptMs: 1, ttftMs: 5, decodeMs: 10, promptTokS: 1, decodeTokS: 3, perTokenMs: [] },
});

const withModel = (chatTemplate: string | null): EngineState => ({
  status: 'ready',
  model: { path: '/m/base.gguf', name: 'base', chatTemplate } as never,
  settings: null,
  lastExit: null,
  message: null,
});

const flush = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  stop?.();
  const a = fakeApi();
  api = a as unknown as FakeApi;
  setApi(a);
  useStore.setState(useStore.getInitialState(), true);
  stop = startStore({ schedule: (flush) => flush() });
});

describe('completion mode', () => {
  it('a model without a chat template completes raw text, remembered as chosen automatically', async () => {
    api.emit({ type: 'state', state: withModel(null) });
    useStore.getState().setSystem('ignored in completion mode');
    await useStore.getState().send('Once upon a time');
    expect(api.generate).not.toHaveBeenCalled();
    const [requestId, text, , maxTokens] = api.complete.mock.calls[0] as [string, string, unknown, number];
    expect(text).toBe('Once upon a time');
    expect(maxTokens).toBe(256);
    expect(useStore.getState().current).toMatchObject({ mode: 'completion', modeAuto: true, title: 'Once upon a time' });
    api.emit({ type: 'token', requestId, token: { index: 0, tokenId: 2, text: ' there', tMs: 1 } });
    api.emit({ type: 'token', requestId, token: { index: 1, tokenId: 3, text: ' was', tMs: 2 } });
    expect(useStore.getState().current.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Once upon a time'],
      ['assistant', ' there was'],
    ]);
    api.emit({ type: 'generation-done', requestId, result: result(' there was'), reportId: null });
    await flush();
    expect(useStore.getState().streaming).toBeNull();
    expect(api.saveConversation).toHaveBeenCalledWith(expect.objectContaining({ mode: 'completion', modeAuto: true }));
  });

  it('continues the whole text: nothing typed continues it as it stands, typed text is appended first', async () => {
    api.emit({ type: 'state', state: withModel(null) });
    await useStore.getState().send('A');
    const id1 = (api.complete.mock.calls[0] as [string])[0];
    api.emit({ type: 'generation-done', requestId: id1, result: result('B'), reportId: null });
    await useStore.getState().send('');
    expect((api.complete.mock.calls[1] as [string, string])[1]).toBe('AB');
    const id2 = (api.complete.mock.calls[1] as [string])[0];
    api.emit({ type: 'generation-done', requestId: id2, result: result('C'), reportId: null });
    await useStore.getState().send('\nD');
    expect((api.complete.mock.calls[2] as [string, string])[1]).toBe('ABC\nD');
    // An empty text with nothing to continue sends nothing.
    useStore.getState().newConversation();
    await useStore.getState().send('');
    expect(api.complete).toHaveBeenCalledTimes(3);
  });

  it('the user can switch a conversation to completion on a chat model (remembered), and back', async () => {
    api.emit({ type: 'state', state: withModel('{{ messages }}') });
    useStore.getState().setMode('completion');
    expect(useStore.getState().current).toMatchObject({ mode: 'completion', modeAuto: false });
    await useStore.getState().send('Roses are red');
    expect(api.complete).toHaveBeenCalledTimes(1);
    const id = (api.complete.mock.calls[0] as [string])[0];
    api.emit({ type: 'generation-done', requestId: id, result: result(','), reportId: null });
    await flush();
    // Switching a conversation with text in it saves the choice at once.
    api.saveConversation.mockClear();
    useStore.getState().setMode('chat');
    expect(api.saveConversation).toHaveBeenCalledWith(expect.objectContaining({ mode: 'chat', modeAuto: false }));
  });

  it('a chat model keeps chat mode; a new conversation follows the model again', async () => {
    api.emit({ type: 'state', state: withModel('{{ messages }}') });
    await useStore.getState().send('hi');
    expect(api.generate).toHaveBeenCalledTimes(1);
    expect(useStore.getState().current).toMatchObject({ mode: 'chat', modeAuto: true });
    useStore.getState().newConversation();
    expect(useStore.getState().current.mode).toBeUndefined();
  });

  it('a failed complete() call ends streaming with the message', async () => {
    api.emit({ type: 'state', state: withModel(null) });
    api.complete.mockRejectedValueOnce(new Error('no model is loaded'));
    await useStore.getState().send('x');
    expect(useStore.getState().streaming).toBeNull();
    expect(useStore.getState().chatError).toBe('no model is loaded');
    expect(useStore.getState().current.messages.map((m) => m.role)).toEqual(['user']);
  });

  it('the mode cannot change while a continuation streams', async () => {
    api.emit({ type: 'state', state: withModel(null) });
    await useStore.getState().send('x');
    useStore.getState().setMode('chat');
    expect(useStore.getState().current.mode).toBe('completion');
  });
});
