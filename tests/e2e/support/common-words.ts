/** Words most records of a support desk hold: a cue of them matches nearly every record. */
const COMMON = (
  'the and for with from that this have will your about order ticket refund invoice customer ' +
  'account payment delivery support issue update request email phone address note meeting'
).split(' ');

/** `chars` characters of the common words above, in a rotating order from `seed` on. */
export function commonWords(chars: number, seed: number): string {
  const out: string[] = [];
  let length = -1;
  for (let i = seed; ; i++) {
    const word = COMMON[(i * 7) % COMMON.length] as string;
    if (length + word.length + 1 > chars) break;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}
