import { QueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { openedSocket, withFakeWebSocket } from "../../test/fakeWebSocket";
import { TEST_SESSION } from "../../test/signedInFetch";
import { signIn } from "../auth/session";
import { startLiveUpdates } from "./liveUpdates";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

describe("live updates", () => {
  beforeAll(async () => {
    await signIn(TEST_SESSION);
  });
  withFakeWebSocket();

  it("connects with the access token and marks cached systems queries stale on a notification", async () => {
    const queryClient = new QueryClient();
    queryClient.setQueryData(["systems", { type: "molecule" }], { data: [] });
    queryClient.setQueryData(["systems", "abc"], { id: "abc" });
    queryClient.setQueryData(["building-blocks"], { data: [] });
    const stop = startLiveUpdates(queryClient);
    const socket = await openedSocket();
    expect(socket.url).toBe(`ws://${window.location.host}/api/v2/notifications/?token=test-access-token`);

    socket.onmessage?.(new MessageEvent("message", { data: '{"message_type":"system_conversion_status_updated"}' }));

    expect(queryClient.getQueryState(["systems", { type: "molecule" }])?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(["systems", "abc"])?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(["building-blocks"])?.isInvalidated).toBe(false);
    stop();
  });

  it("says at once when a run was taken back after its server stopped (the message's notice)", async () => {
    const warning = vi.spyOn(toast, "warning");
    const stop = startLiveUpdates(new QueryClient());
    const socket = await openedSocket();
    const notice = "The server running this stopped; processing was taken back and started again.";
    socket.onmessage?.(
      new MessageEvent("message", {
        data: JSON.stringify({ message_type: "system_execution_status_updated", status: "processing", notice }),
      }),
    );
    socket.onmessage?.(
      new MessageEvent("message", { data: '{"message_type":"system_execution_status_updated","status":"running"}' }),
    );
    expect(warning).toHaveBeenCalledTimes(1);
    expect(warning).toHaveBeenCalledWith(notice, expect.anything());
    warning.mockRestore();
    stop();
  });
});
