/** One recalled record as the ranking returns it: its row and how many cue terms it holds. */
export interface RankedRow {
  id: string;
  event_id: string;
  occurred_at: Date;
  text: string;
  source: unknown;
  matched: number;
}
