import { createHash } from 'node:crypto';

/** How much of one retained item a reply quotes. */
const QUOTE_MAX_CHARS = 280;

export const NO_MEMORY_REPLY =
  'I have no retained memory in this conversation that relates to your message yet.';

const quote = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTE_MAX_CHARS ? `${flat.slice(0, QUOTE_MAX_CHARS - 1)}…` : flat;
};

/**
 * The mock model's reply: a fixed sentence when nothing was recalled, else the recalled texts in
 * ranking order, numbered, so the reply says which retained items it used. A function of its input only.
 */
export function composeChatReply(recalled: ReadonlyArray<{ text: string }>): string {
  if (recalled.length === 0) return NO_MEMORY_REPLY;
  const items = recalled.map((r, i) => `[${i + 1}] ${quote(r.text)}`).join(' ');
  const noun = recalled.length === 1 ? 'retained item' : 'retained items';
  return `From memory (${recalled.length} ${noun}): ${items}`;
}

/**
 * The idempotency key (and event id) of a retained user turn: the same conversation, position and
 * text always give the same key, so a retried call replays the write instead of writing twice.
 */
export function chatTurnKey(memoryId: string, messageIndex: number, text: string): string {
  const digest = createHash('sha256').update(`${memoryId}\n${messageIndex}\n${text}`).digest('hex');
  return `chat-${digest}`;
}
