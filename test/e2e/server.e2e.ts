/**
 * The loopback server fixture itself: where it listens, that it stops by
 * itself, and how it treats connections it cannot serve (the sessions in
 * the other e2e files exercise everything else).
 */
import { connect, type Socket } from "node:net";
import { networkInterfaces } from "node:os";

import process from "node:process";

import { describe, expect, test } from "vitest";

import { startServer } from "./server/server.ts";
import { startSessionServer } from "./server_lifetime.ts";
import { expectSame } from "../helpers/bytes.ts";

const open = (host: string, port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host, port }, () => resolve(socket));
    socket.once("error", reject);
  });
const closed = (socket: Socket) => new Promise<Uint8Array>((resolve) => {
  const chunks: Uint8Array[] = [];
  socket.on("data", (c: Uint8Array) => chunks.push(new Uint8Array(c)));
  socket.on("close", () => resolve(new Uint8Array(chunks.flatMap((c) => [...c]))));
});

describe("the loopback server fixture", () => {
  test("listens on 127.0.0.1 only, on an ephemeral port, and stops by itself after its timeout", async () => {
    const started = Date.now();
    const server = await startServer({ timeoutMs: 400 });
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBeGreaterThan(1023);
    const client = await open("127.0.0.1", server.port);
    const gone = closed(client);
    // Not on any other address: this machine's external IPv4 addresses, or another loopback address (Linux).
    const others = Object.values(networkInterfaces()).flat().filter((i) => i && i.family === "IPv4" && !i.internal).map((i) => i!.address);
    if (others.length === 0 && process.platform === "linux") others.push("127.0.0.2");
    expect(others.length).toBeGreaterThan(0);
    for (const address of others) await expect(open(address, server.port)).rejects.toThrow(/ECONNREFUSED/);
    expect(await server.stopped).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(5000);
    await gone; // its connections are closed with it
    await expect(open("127.0.0.1", server.port)).rejects.toThrow(/ECONNREFUSED/);
  });

  test("an encrypted packet under an unknown auth_key_id gets transport error -404, then the connection closes", async () => {
    const server = await startSessionServer("server.e2e.ts");
    try {
      const socket = await open(server.host, server.port);
      const done = closed(socket);
      const packet = new Uint8Array(4 + 72);
      new DataView(packet.buffer).setUint32(0, 72, true); // intermediate: length, then the packet
      packet.fill(0x5a, 4); // auth_key_id 5a5a..., no such key
      socket.write(Uint8Array.of(0xee, 0xee, 0xee, 0xee));
      socket.write(packet);
      const answer = await done;
      expectSame([...answer], [4, 0, 0, 0, 0x6c, 0xfe, 0xff, 0xff]); // length 4, int32 -404
      expect(server.stats.unknownAuthKeys).toBe(1);
    } finally {
      await server.stop();
    }
  });

  test("a connection it cannot read (an obfuscated header with an unknown protocol tag) is closed and recorded", async () => {
    const server = await startSessionServer("server.e2e.ts");
    try {
      const socket = await open(server.host, server.port);
      const done = closed(socket);
      const header = new Uint8Array(64).map((_, i) => (i * 37 + 11) & 0xff); // not 0xef, no known tag, bytes 4..8 non-zero
      socket.write(header);
      expect((await done).length).toBe(0);
      expectSame(server.stats.transportErrors, [expect.stringMatching(/^TransportError: obfuscated: unknown protocol tag/)]);
    } finally {
      await server.stop();
    }
  });
});
