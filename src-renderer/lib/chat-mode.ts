// Chat or completion: which one a conversation uses, why, and the raw text a completion
// continues. Pure; the chat slice and the chat view read it.
import type { ChatMode, Conversation } from '../../src-main/shared/api.js';
import type { ModelInfo } from '../../src-main/shared/worker-protocol.js';

export interface ModeChoice {
  mode: ChatMode;
  /** Chosen from the model (it has no chat template), not by the user. */
  auto: boolean;
  /** Why an automatic completion mode was chosen (the toggle shows it); null otherwise. */
  reason: string | null;
  /** A chat that cannot work: the loaded model has no chat template. */
  warning: string | null;
}

type ModelLike = Pick<ModelInfo, 'name' | 'chatTemplate'> | null | undefined;

/** A model known to have no chat template (an unknown model is assumed to have one). */
export function lacksTemplate(model: ModelLike): boolean {
  return model !== null && model !== undefined && model.chatTemplate === null;
}

const NO_TEMPLATE_REASON = 'chosen automatically: the model has no chat template (tokenizer.chat_template), so the text is continued as written';

/**
 * The mode a conversation uses: the one it remembers, else completion when the loaded model
 * has no chat template, else chat.
 */
export function chooseMode(c: Pick<Conversation, 'mode' | 'modeAuto'>, model: ModelLike): ModeChoice {
  const noTemplate = lacksTemplate(model);
  const mode: ChatMode = c.mode ?? (noTemplate ? 'completion' : 'chat');
  const auto = c.mode === undefined ? true : c.modeAuto === true;
  return {
    mode,
    auto,
    reason: auto && mode === 'completion' ? NO_TEMPLATE_REASON : null,
    warning: mode === 'chat' && noTemplate ? `${model?.name || 'this model'} has no chat template: chat messages will fail; switch to completion` : null,
  };
}

/** The text a completion continues: every prompt and continuation so far, in order, as one string. */
export function completionText(c: Pick<Conversation, 'messages'>): string {
  return c.messages.map((m) => m.content).join('');
}
