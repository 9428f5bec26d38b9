import { readFile } from 'node:fs/promises';
import { type EvidenceRepairs, noRepairs, normaliseEvidence } from './evidence-ids.js';
import { parseSessionTime, turnTime } from './session-time.js';

/** One dialog turn as the bench writes it: one memory. */
export interface LocomoTurn {
  diaId: string;
  /** `"<speaker>: <text>"`, plus ` [shares a photo: <caption>]` where the turn shares one. */
  text: string;
  occurredAt: string;
}

/** LoCoMo's question categories (the paper's numbering). */
export const CATEGORY_NAMES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface LocomoQuestion {
  question: string;
  /** A key of CATEGORY_NAMES. */
  category: number;
  /** Distinct dia ids of existing turns, never empty. */
  evidence: string[];
}

export interface LocomoConversation {
  sampleId: string;
  /** In conversation order: sessions by number, turns as spoken. */
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

/** What cleaning the evidence did, for the report. */
export interface LocomoCleaning extends EvidenceRepairs {
  /** Questions in the file. */
  questions: number;
  /** Questions dropped because no evidence was left (or there was none to begin with). */
  withoutEvidence: number;
}

export interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

export interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; category: number; evidence?: string[] }>;
}

/** The LoCoMo file (the released locomo10.json format), read where it lies: it is never copied anywhere. */
export async function readLocomo(
  file: string,
): Promise<{ conversations: LocomoConversation[]; cleaning: LocomoCleaning }> {
  let samples: unknown;
  try {
    samples = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the LoCoMo data at ${file} (--locomo FILE): ${(err as Error).message}`);
  }
  if (!Array.isArray(samples)) throw new Error(`${file} is not a JSON array of LoCoMo samples`);
  return locomoConversations(samples as RawSample[]);
}

export function locomoConversations(samples: RawSample[]): {
  conversations: LocomoConversation[];
  cleaning: LocomoCleaning;
} {
  const cleaning: LocomoCleaning = { ...noRepairs(), questions: 0, withoutEvidence: 0 };
  const conversations = samples.map((sample) => {
    const turns = sessionTurns(sample.conversation);
    const turnIds = new Set(turns.map((t) => t.diaId));
    const questions: LocomoQuestion[] = [];
    for (const qa of sample.qa) {
      cleaning.questions++;
      const evidence = normaliseEvidence(qa.evidence ?? [], turnIds, cleaning);
      if (evidence.length === 0) cleaning.withoutEvidence++;
      else questions.push({ question: qa.question, category: qa.category, evidence });
    }
    return { sampleId: sample.sample_id, turns, questions };
  });
  return { conversations, cleaning };
}

function sessionTurns(conversation: Record<string, unknown>): LocomoTurn[] {
  const sessions = Object.keys(conversation)
    .flatMap((key) => {
      const number = /^session_(\d+)$/.exec(key)?.[1];
      return number ? [Number(number)] : [];
    })
    .sort((a, b) => a - b);
  return sessions.flatMap((n) => {
    const dateTime = conversation[`session_${n}_date_time`];
    if (typeof dateTime !== 'string') throw new Error(`session_${n} has no session_${n}_date_time`);
    const started = parseSessionTime(dateTime);
    return (conversation[`session_${n}`] as RawTurn[]).map((turn, index) => ({
      diaId: turn.dia_id,
      text: `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : ''}`,
      occurredAt: turnTime(started, index),
    }));
  });
}
