// How the quality bench turns a LoCoMo sample into memories and questions (quality/locomo-dataset.ts).
import { describe, expect, it } from 'vitest';
import { locomoConversations } from './quality/locomo-dataset.js';

const sample = {
  sample_id: 'conv-x',
  conversation: {
    speaker_a: 'Ana',
    speaker_b: 'Bo',
    session_10_date_time: '9:00 am on 2 June, 2023',
    session_10: [{ speaker: 'Bo', dia_id: 'D10:1', text: 'Later.' }],
    session_2_date_time: '1:56 pm on 8 May, 2023',
    session_2: [
      { speaker: 'Ana', dia_id: 'D2:1', text: 'Look!', blip_caption: 'a photo of a dog' },
      { speaker: 'Bo', dia_id: 'D2:2', text: 'Nice dog.' },
    ],
  },
  qa: [
    { question: 'What did Ana share?', category: 4, evidence: ['D2:1 D2:2'] },
    { question: 'When?', category: 2, evidence: ['D:10:1', 'D7:7'] },
    { question: 'Who is Cy?', category: 5, evidence: ['D9:9'] },
    { question: 'No evidence?', category: 3, evidence: [] },
  ],
};

describe('locomoConversations', () => {
  it('when a sample is read, then each turn is one memory in session order, its caption appended, its time its session time plus its index', () => {
    const { conversations } = locomoConversations([sample]);

    expect(conversations[0]?.turns).toEqual([
      {
        diaId: 'D2:1',
        text: 'Ana: Look! [shares a photo: a photo of a dog]',
        occurredAt: '2023-05-08T13:56:00.000Z',
      },
      { diaId: 'D2:2', text: 'Bo: Nice dog.', occurredAt: '2023-05-08T13:56:01.000Z' },
      { diaId: 'D10:1', text: 'Bo: Later.', occurredAt: '2023-06-02T09:00:00.000Z' },
    ]);
  });

  it('when evidence is malformed or missing, then it is cleaned, questions left without any are dropped, and each is counted', () => {
    const { conversations, cleaning } = locomoConversations([sample]);

    expect(conversations[0]?.questions).toEqual([
      { question: 'What did Ana share?', category: 4, evidence: ['D2:1', 'D2:2'] },
      { question: 'When?', category: 2, evidence: ['D10:1'] },
    ]);
    expect(cleaning).toEqual({ split: 1, repaired: 1, unknown: 2, questions: 4, withoutEvidence: 2 });
  });
});
