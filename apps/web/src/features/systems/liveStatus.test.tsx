import type { SystemExecution, SystemWithExecutions } from "@polyforge/contracts/system-executions";
import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { startLiveUpdates } from "../../lib/notifications/liveUpdates";
import { openedSocket, withFakeWebSocket } from "../../test/fakeWebSocket";
import { builtSystem, runningExecution } from "../../test/fixtures";
import { renderApp } from "../../test/renderApp";
import { jsonResponse as json, signedInWithFetch } from "../../test/signedInFetch";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();

const SYSTEM_ID = "5d0c7a52-3b7e-4c55-9a43-7f0e1d2c3b4a";

const running = (progress: number, stage: string) => runningExecution({ progress, stage });

const melt = (execution: SystemExecution): SystemWithExecutions =>
  builtSystem({ id: SYSTEM_ID, name: "PE melt", sanitized_name: "pe_melt", system_executions: [execution] });

const progressMessage = (progress: number) => ({
  message_type: "system_execution_status_updated",
  system_id: SYSTEM_ID,
  execution_id: "run-1",
  status: "running",
  progress,
});

const requests = () => fetchMock.mock.calls.map(([url]) => String(url));

/** Renders the app at `path` with the notifications socket connected, once its first reads are in. */
async function liveAt(path: string, shown: string) {
  const app = renderApp(path);
  const stop = startLiveUpdates(app.queryClient);
  const socket = await openedSocket();
  socket.open();
  expect(await screen.findByText(shown)).toBeInTheDocument();
  await vi.waitFor(() => expect(app.queryClient.isFetching()).toBe(0));
  return { ...app, socket, stop };
}

describe("live status from the notifications socket", () => {
  signedInWithFetch(fetchMock);
  withFakeWebSocket();

  it("moves a catalogue row's status tag from the message alone, asking the server for nothing", async () => {
    fetchMock.mockImplementation(async () =>
      json(200, { data: [melt(running(10, "dynamics"))], metadata: { page_num: 1, page_size: 10, num_records: 1 } }),
    );
    const { queryClient, socket, stop } = await liveAt("/systems?type=system", "PE melt");
    const row = screen.getByText("PE melt").closest("tr")!;
    expect(within(row).getByText("Running 10%")).toBeInTheDocument();
    const before = requests().length;

    act(() => socket.push(progressMessage(64)));

    expect(queryClient.isFetching()).toBe(0); // no refetch started, of the list or anything else
    expect(await within(row).findByText("Running 64%")).toBeInTheDocument();
    expect(requests()).toHaveLength(before);
    stop();
  });

  it("shows the message's progress at once on the detail page and asks again for that system only", async () => {
    fetchMock.mockImplementation(async () => json(200, melt(running(10, "dynamics"))));
    const { queryClient, socket, stop } = await liveAt(`/systems/${SYSTEM_ID}`, "Running 10%");
    const before = requests().length;
    // The server's answer (with the stage the message does not carry) is held until the test lets it go.
    let answer: (response: Response) => void = () => {};
    fetchMock.mockImplementation(() => new Promise((resolve) => (answer = resolve)));

    act(() => socket.push(progressMessage(64)));

    expect(await screen.findByText("Running 64%")).toBeInTheDocument();
    expect(queryClient.isFetching()).toBe(1);
    await vi.waitFor(() => expect(requests().slice(before)).toEqual([`/api/v2/systems/${SYSTEM_ID}`]));
    answer(json(200, melt(running(64, "equilibration stage 2 of 21: NVT at 600 K"))));
    expect(await screen.findByText("Stage: equilibration stage 2 of 21: NVT at 600 K")).toBeInTheDocument();
    expect(requests()).toHaveLength(before + 1);
    stop();
  });

  it("takes the cancel's own answer at once, and no stale progress message brings the run back", async () => {
    const page = (execution: SystemExecution) =>
      json(200, { data: [melt(execution)], metadata: { page_num: 1, page_size: 10, num_records: 1 } });
    const cancelled = runningExecution({ status: "cancelled", finished_at: "2026-11-21T10:01:00Z" });
    // The list keeps answering the run as running (a slow replica, a refetch begun before the cancel).
    fetchMock.mockImplementation(async (_url, init) =>
      init?.method === "DELETE" ? json(200, cancelled) : page(running(10, "dynamics")),
    );
    const { socket, stop } = await liveAt("/systems?type=system", "PE melt");
    const row = screen.getByText("PE melt").closest("tr")!;

    await userEvent.click(within(row).getByRole("button", { name: "Cancel processing PE melt" }));

    expect(await within(row).findByText("Cancelled")).toBeInTheDocument();
    act(() => socket.push(progressMessage(12)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(row).getByText("Cancelled")).toBeInTheDocument();
    expect(within(row).queryByText(/Running/)).not.toBeInTheDocument();
    stop();
  });
});
