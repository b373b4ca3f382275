/**
 * What a client needs to know of the loopback server: where it listens and
 * its test RSA public keys. A LoopbackServer (server/server.ts) is one; so is what
 * server/main.ts prints (parsed by {@link parseServerAddress}).
 */
export interface PublicRsaKey {
  readonly fingerprint: bigint;
  readonly n: bigint;
  readonly e: bigint;
  readonly publicPem: string;
}

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
  readonly dcId: number;
  readonly rsaKeys: Readonly<Record<"rsa_pad" | "legacy", PublicRsaKey>>;
}

/** server/main.ts's first line of output. */
export function parseServerAddress(line: string): ServerAddress {
  const raw = JSON.parse(line) as {
    host: string;
    port: number;
    dcId: number;
    rsaKeys: Record<"rsa_pad" | "legacy", { fingerprint: string; n: string; e: string; publicPem: string }>;
  };
  const key = (k: (typeof raw.rsaKeys)["rsa_pad"]): PublicRsaKey => ({
    fingerprint: BigInt(k.fingerprint),
    n: BigInt(`0x${k.n}`),
    e: BigInt(`0x${k.e}`),
    publicPem: k.publicPem,
  });
  return { host: raw.host, port: raw.port, dcId: raw.dcId, rsaKeys: { rsa_pad: key(raw.rsaKeys.rsa_pad), legacy: key(raw.rsaKeys.legacy) } };
}
