import { afterEach, describe, expect, it } from "vitest";
import { connectSmtp } from "../smtp-session.mjs";
import { refusedPort, startRawServer } from "./helpers.mjs";

let server;
afterEach(() => server?.close());

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const connect = (port, timeoutMs = 2000) => connectSmtp({ ip: "127.0.0.1", port, deadline: Date.now() + timeoutMs });

describe("SMTP line protocol", () => {
  it("reassembles multi-line replies split across and merged within TCP reads", async () => {
    server = await startRawServer(async (socket) => {
      socket.once("data", () => socket.write("250-mx.example.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n251 extra\n"));
      for (const piece of ["2", "20-mx.example.test ESMTP\r", "\n220", " ready\r\n"]) {
        await pause(15);
        socket.write(piece);
      }
    });
    const session = await connect(server.port);
    expect(await session.readReply()).toEqual({ code: 220, message: "mx.example.test ESMTP\nready" });
    expect(await session.command("EHLO verify.localhost")).toEqual({
      code: 250,
      message: "mx.example.test\nPIPELINING\n8BITMIME",
    });
    expect(await session.readReply()).toEqual({ code: 251, message: "extra" });
    session.close();
  });

  it("fails with kind timeout when the server stays silent until the deadline", async () => {
    server = await startRawServer(() => {});
    const started = Date.now();
    const session = await connect(server.port, 300);
    await expect(session.readReply()).rejects.toMatchObject({ kind: "timeout" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("fails with kind connection when the port refuses or the server hangs up", async () => {
    await expect(connect(await refusedPort())).rejects.toMatchObject({ kind: "connection" });
    server = await startRawServer((socket) => socket.end("220 bye\r\n"));
    const session = await connect(server.port);
    expect((await session.readReply()).code).toBe(220);
    await expect(session.readReply()).rejects.toMatchObject({ kind: "connection" });
  });

  it("fails with kind protocol on a line that is not an SMTP reply", async () => {
    server = await startRawServer((socket) => socket.write("HTTP/1.1 400 Bad Request\r\n"));
    const session = await connect(server.port);
    await expect(session.readReply()).rejects.toMatchObject({ kind: "protocol" });
  });

  it("refuses to send a command containing CR or LF", async () => {
    server = await startRawServer((socket) => socket.write("220 ready\r\n"));
    const session = await connect(server.port);
    await session.readReply();
    await expect(session.command("RCPT TO:<a@x.test>\r\nDATA")).rejects.toMatchObject({ kind: "protocol" });
    session.close();
    expect(server.stats.received).toBe("");
  });
});
