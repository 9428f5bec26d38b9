// Plain JavaScript for k6 and the bench alike (see vocabulary.js).

/** @typedef {() => number} Random A number in [0, 1). */

/**
 * A small seeded PRNG (mulberry32): the same seed gives the same corpus on every run.
 * @param {number} seed
 * @returns {Random}
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An integer in [min, max], both included.
 * @param {Random} random
 * @param {number} min
 * @param {number} max
 */
export function randomInt(random, min, max) {
  return min + Math.floor(random() * (max - min + 1));
}
