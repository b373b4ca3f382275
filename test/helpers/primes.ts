/**
 * Plain bigint number theory for the tests and the e2e server's handshake,
 * written here (no library): modular exponentiation and a Miller–Rabin test
 * that is exact below 3.3 * 10^24 (the first 12 prime bases), far above the
 * 64-bit pq values and 31-bit primes the tests use.
 */

/** base^exponent mod modulus (square and multiply). */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    base = (base * base) % modulus;
    exponent >>= 1n;
  }
  return result;
}

const BASES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n];

/** Whether n is prime (deterministic for n < 3.3 * 10^24). */
export function isPrime(n: bigint): boolean {
  if (n < 2n) return false;
  for (const p of BASES) if (n % p === 0n) return n === p;
  let d = n - 1n, s = 0;
  while ((d & 1n) === 0n) (d >>= 1n), s++;
  outer: for (const a of BASES) {
    let x = modPow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === n - 1n) continue outer;
    }
    return false;
  }
  return true;
}
