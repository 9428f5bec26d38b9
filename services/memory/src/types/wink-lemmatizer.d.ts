/** wink-lemmatizer ships no types: the three functions it exports, each from a word to its base form. */
declare module 'wink-lemmatizer' {
  const lemmatizer: {
    verb(word: string): string;
    noun(word: string): string;
    adjective(word: string): string;
  };
  export default lemmatizer;
}
