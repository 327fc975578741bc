/**
 * Flags usernames that look machine-made (`xk7qz2p9`, `qwrtzpsdfg`): long enough to judge, and with a vowel share,
 * consonant run or letter/digit mix no human name or word has. Deliberately conservative: names and words pass.
 */
const VOWELS = /[aeiouy]/;

export function isGibberish(local: string): boolean {
  const text = local.toLowerCase().split("+")[0]!.replace(/[._-]/g, "");
  if (text.length < 8) return false;
  const letters = text.replace(/[^a-z]/g, "");
  const digits = text.length - letters.length;
  if (letters.length === 0) return false;
  const vowelShare = [...letters].filter((ch) => VOWELS.test(ch)).length / letters.length;
  const longestConsonantRun = Math.max(0, ...(letters.match(/[^aeiouy]+/g) ?? []).map((run) => run.length));
  const switches = [...text].filter((ch, i) => i > 0 && /\d/.test(ch) !== /\d/.test(text[i - 1]!)).length;
  return (letters.length >= 8 && vowelShare < 0.15) || longestConsonantRun >= 6 || (digits >= 3 && switches >= 4);
}
