const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const SESSION_TIME = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i;

/**
 * A LoCoMo session's date-time ("1:56 pm on 8 May, 2023") as UTC: the data names no zone, and only
 * the order of events matters to recall, so one zone for all of them is enough.
 */
export function parseSessionTime(text: string): Date {
  const match = SESSION_TIME.exec(text.trim());
  const month = MONTHS.indexOf(match?.[5]?.toLowerCase() ?? '');
  if (!match || month < 0) throw new Error(`not a LoCoMo session date-time: ${JSON.stringify(text)}`);
  const [, hour, minute, meridiem, day, , year] = match;
  // 12 am is midnight and 12 pm noon.
  const hours = (Number(hour) % 12) + (meridiem?.toLowerCase() === 'pm' ? 12 : 0);
  const date = new Date(Date.UTC(Number(year), month, Number(day), hours, Number(minute)));
  if (date.getUTCDate() !== Number(day) || Number(hour) > 12 || Number(minute) > 59)
    throw new Error(`not a valid date-time: ${JSON.stringify(text)}`);
  return date;
}

/** A turn's event time: its session's time plus its place in the session in seconds, so turn order is kept. */
export function turnTime(sessionTime: Date, turnIndex: number): string {
  return new Date(sessionTime.getTime() + turnIndex * 1_000).toISOString();
}
