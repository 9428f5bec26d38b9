// Plain JavaScript in tests/load/k6/ because docker-compose's k6 service mounts only this folder; the
// bench (text-corpus.ts) imports it from here, so k6 and the bench draw from one vocabulary.

/**
 * The bench's vocabulary, most frequent first: real English words for the head of the distribution
 * (function words, then everyday words of the kind people ask an assistant to remember), then a
 * deterministic tail of invented words (names, places, product and project names) up to the
 * requested size. Rank order matters: the Zipf sampler gives rank 1 the highest probability.
 */
const HEAD = `
the of and to a in is that for it you was with on as have be at by this not are from or his but
had they we an she which her were all their one there been has would will when if more so can no
who what said about up out them into do than time some could only my other then its me him now
over like also after our your first back two how new any very these just where most know get may
make people year way well because down good should through see day each those many before must
here even much work take still being made between life three under again never last world while
place same another great home small old year long thing both every since house own day found part
children around night right something while without week last came told left end asked need
feel later always next give keep set late water hand high group hard order point family school
room mother father friend name call find today tomorrow yesterday morning evening afternoon
weekend monday tuesday wednesday thursday friday saturday sunday january february march april
june july august september october november december meeting appointment doctor dentist
project deadline report review email phone message note reminder plan trip flight hotel ticket
train station airport car bus bike walk run gym yoga lunch dinner breakfast coffee tea restaurant
kitchen recipe grocery shopping list birthday party gift anniversary wedding holiday vacation
office team manager colleague client customer budget invoice payment bank account card rent
doctor prescription medicine allergy pharmacy insurance health sleep headache exercise diet
book movie music song concert show game match ticket podcast article news paper blog video
garden plant flower tree dog cat pet vet walk park beach lake mountain river city town street
address password code key door lock window light heat power bill internet wifi laptop computer
printer screen keyboard mouse charger battery update backup file folder document spreadsheet
slide presentation agenda minutes notes task issue bug feature release launch version design
draft proposal contract signature approval request question answer idea problem solution
decision reason result goal progress status risk priority schedule calendar slot session call
interview candidate offer salary review feedback promotion training course class lesson exam
homework teacher student university degree language spanish french german english math history
science music piano guitar lesson practice concert ticket seat row gate terminal baggage
passport visa embassy form tax return refund receipt warranty repair service plumber electrician
mechanic tire oil brake engine parking garage fuel charge station route traffic map direction
north south east west left right near far early late quick slow big little young new old blue
red green black white yellow brown orange purple pink gray favorite best better worst bad nice
happy sad tired busy free ready sure likely important urgent simple easy difficult cheap
expensive warm cold hot cool wet dry sunny rainy snow wind storm weather forecast temperature
mom dad sister brother son daughter wife husband partner aunt uncle cousin grandma grandpa baby
kid neighbor landlord boss coworker roommate guest visitor host chef driver pilot nurse lawyer
accountant agent advisor coach therapist trainer tutor mentor author artist singer actor player
prefer like love hate want wish hope remember forget mention discuss agree decide choose buy sell
pay send receive book cancel confirm reschedule move change fix clean cook bake drive ride fly
travel visit meet join leave arrive return stay wait start finish open close read write watch
listen play learn teach help ask tell show share check test try use need bring pick drop order
deliver pack ship track save spend borrow lend owe cost price discount coupon sale deal offer
`;

const SYLLABLES =
  'ka lo mi ran to vel dor sa ne bri qua zen fa gor li mon ta ver pel dri no sen ca rho tam bel gi lu mar xo'.split(
    ' ',
  );

/**
 * Distinct words, `size` of them, most frequent first.
 * @param {number} size
 * @returns {string[]}
 */
export function buildVocabulary(size) {
  /** @type {string[]} */
  const words = [];
  const seen = new Set();
  /** @param {string} word */
  const add = (word) => {
    if (!seen.has(word) && words.length < size) {
      seen.add(word);
      words.push(word);
    }
  };
  for (const word of HEAD.split(/\s+/)) if (word) add(word);
  // The tail: invented two-syllable words, then three-syllable ones, each set visited in a fixed
  // scrambled order (multiplying by a number coprime with the set's size is a permutation).
  const n = SYLLABLES.length;
  /** @param {number} index */
  const syllable = (index) => SYLLABLES[index % n] ?? '';
  for (let i = 0; words.length < size && i < n ** 2; i++) {
    const j = (i * 7) % n ** 2;
    add(syllable(j) + syllable(Math.floor(j / n)));
  }
  for (let i = 0; words.length < size && i < n ** 3; i++) {
    const j = (i * 337) % n ** 3;
    add(syllable(j) + syllable(Math.floor(j / n)) + syllable(Math.floor(j / n ** 2)));
  }
  return words;
}
