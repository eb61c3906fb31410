import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { CommonErrors } from "@polyforge/contracts/errors";
import type { NotificationMessage } from "@polyforge/contracts/notifications";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { MAX_SOCKETS_PER_USER, TOKEN_EXPIRED_CLOSE_CODE } from "../src/modules/notifications/routes";
import { publishNotification } from "../src/platform/events/notifications";
import { startTestApp, type TestApp } from "./support/app";
import { databaseKinds } from "./support/database";
import { type TestUserClaims, userClaims } from "./support/tokens";
import { waitFor, waitUntil } from "./support/wait";

describe.each(databaseKinds())("notifications socket on %s", (kind) => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/v2/notifications/`;
  });
  afterAll(() => t?.close());

  /** Opens a socket; resolves once open, or with the HTTP status the upgrade was refused with. */
  const connect = (query: string) =>
    new Promise<{ socket: WebSocket; received: NotificationMessage[] } | { refused: number; body: string }>(
      (resolve, reject) => {
        const socket = new WebSocket(`${baseUrl}${query}`);
        const received: NotificationMessage[] = [];
        socket.on("message", (data) => received.push(JSON.parse(data.toString())));
        socket.once("open", () => resolve({ socket, received }));
        socket.once("unexpected-response", (_request, response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on("end", () => resolve({ refused: response.statusCode ?? 0, body }));
        });
        socket.once("error", reject);
      },
    );
  const connectAs = async (claims: TestUserClaims) => {
    const result = await connect(`?token=${await t.issuer.sign(claims)}`);
    if (!("socket" in result)) throw new Error(`socket refused with ${result.refused}`);
    return result;
  };

  it("refuses a missing, malformed or foreign token with the 401 envelope", async () => {
    const foreign = await t.issuer.sign(userClaims(), { issuer: "https://evil.example/realms/polyforge" });
    const cases: [string, string][] = [
      ["", CommonErrors.UNAUTHORIZED_MISSING_TOKEN],
      ["?token=garbage", CommonErrors.UNAUTHORIZED_TOKEN_DECODE_ERROR],
      [`?token=${foreign}`, CommonErrors.UNAUTHORIZED_INVALID_TOKEN],
    ];
    for (const [query, code] of cases) {
      const result = await connect(query);
      expect(result).toMatchObject({ refused: 401 });
      if ("body" in result) expect(JSON.parse(result.body).errors[0].error_code).toBe(code);
    }
  });

  it(`caps one user's open sockets at ${MAX_SOCKETS_PER_USER} (issue 23), and frees a place on close`, async () => {
    const ada = userClaims();
    const open: Array<Awaited<ReturnType<typeof connectAs>>> = [];
    for (let i = 0; i < MAX_SOCKETS_PER_USER; i++) open.push(await connectAs(ada));
    const refused = await connect(`?token=${await t.issuer.sign(ada)}`);
    expect(refused).toMatchObject({ refused: 429 });
    // Another user is not affected.
    (await connectAs(userClaims())).socket.close();
    open[0]!.socket.close();
    await waitUntil("the socket to close", () => open[0]!.socket.readyState === WebSocket.CLOSED);
    // The server frees the place once it has seen the close.
    const again = await waitFor("a place for another socket", async () => {
      const result = await connect(`?token=${await t.issuer.sign(ada)}`);
      return "socket" in result ? result : undefined;
    });
    again.socket.close();
    for (const { socket } of open) socket.close();
  });

  it("delivers a NOTIFY-published message to that user's sockets only", async () => {
    const ada = userClaims();
    const bob = userClaims();
    const adaTab1 = await connectAs(ada);
    const adaTab2 = await connectAs(ada);
    const bobTab = await connectAs(bob);

    const message: NotificationMessage = { message_type: "system_execution_status_updated", system_id: "s-1" };
    await publishNotification(t.app.database.db, ada.sub, message);
    await waitUntil("both of Ada's tabs to hear", () => adaTab1.received.length > 0 && adaTab2.received.length > 0);
    expect(adaTab1.received).toEqual([message]);
    expect(adaTab2.received).toEqual([message]);

    // Bob's own message arrives; Ada's never did.
    const forBob: NotificationMessage = { message_type: "uploaded_system_status_updated" };
    await publishNotification(t.app.database.db, bob.sub, forBob);
    await waitUntil("Bob's message", () => bobTab.received.length > 0);
    expect(bobTab.received).toEqual([forBob]);
    expect(adaTab1.received).toHaveLength(1);

    for (const tab of [adaTab1, adaTab2, bobTab]) {
      tab.socket.close();
      await once(tab.socket, "close");
    }
  });

  it("closes the socket with 4401 when its token expires", async () => {
    const result = await connect(`?token=${await t.issuer.sign(userClaims(), { expiresIn: "2s" })}`);
    if (!("socket" in result)) throw new Error(`socket refused with ${result.refused}`);
    const [code] = (await once(result.socket, "close")) as [number];
    expect(code).toBe(TOKEN_EXPIRED_CLOSE_CODE);
  });

  it("sends a message published in a transaction only when it commits", async () => {
    const ada = userClaims();
    const tab = await connectAs(ada);
    const rolledBack = t.app.database.db.transaction(async (tx) => {
      await publishNotification(tx, ada.sub, { message_type: "uploaded_potential_status_updated" });
      tx.rollback();
    });
    await expect(rolledBack).rejects.toThrow();
    await publishNotification(t.app.database.db, ada.sub, { message_type: "system_conversion_status_updated" });
    await waitUntil("the committed message", () => tab.received.length > 0);
    expect(tab.received).toEqual([{ message_type: "system_conversion_status_updated" }]);
    tab.socket.close();
    await once(tab.socket, "close");
  });
});
