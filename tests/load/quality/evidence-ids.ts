/** What normalising a question's evidence changed, summed over the data set for the report. */
export interface EvidenceRepairs {
  /** Strings that held more than one id ("D1:3 D1:5", "D8:6; D9:17"). */
  split: number;
  /** Ids written with a stray colon ("D:11:26" for "D11:26"). */
  repaired: number;
  /** Ids, after the above, that name no turn of the conversation. */
  unknown: number;
}

export const noRepairs = (): EvidenceRepairs => ({ split: 0, repaired: 0, unknown: 0 });

const STRAY_COLON = /^D:(\d+:\d+)$/;

/**
 * A question's evidence as distinct dia ids of turns that exist: strings holding several ids are
 * split, "D:11:26" becomes "D11:26", and ids of no turn are dropped. `repairs` counts each change.
 */
export function normaliseEvidence(
  raw: readonly string[],
  turnIds: ReadonlySet<string>,
  repairs: EvidenceRepairs = noRepairs(),
): string[] {
  const ids = new Set<string>();
  for (const entry of raw) {
    const parts = entry.split(/[\s;,]+/).filter(Boolean);
    if (parts.length > 1) repairs.split++;
    for (const part of parts) {
      const stray = STRAY_COLON.exec(part);
      if (stray) repairs.repaired++;
      const id = stray ? `D${stray[1]}` : part;
      if (turnIds.has(id)) ids.add(id);
      else repairs.unknown++;
    }
  }
  return [...ids];
}
