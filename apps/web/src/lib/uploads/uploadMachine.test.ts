import { MB, UPLOAD_FAILED_MESSAGE, UPLOAD_PART_SIZE } from "@polyforge/contracts/uploads";
import { createActor, waitFor } from "xstate";
import { FakePartRequest } from "../../test/fakePartRequest";
import { jsonResponse, signedInWithFetch } from "../../test/signedInFetch";
import { shownProgress, type UploadMachineState, uploadMachine } from "./uploadMachine";
import { uploadTargetAt } from "./uploadTarget";

vi.mock("keycloak-js", () => import("../../test/fakeKeycloak"));

const fetchMock = vi.fn<typeof fetch>();
const UPLOAD_PATH = "/systems/s-1/upload";

interface FakeStore {
  /** Calls to our API, as "METHOD /path". */
  calls: string[];
  /** Part numbers PUT to the signed URLs, in order of arrival. */
  puts: number[];
  completedWith: unknown;
  canceled: string[];
  /** Parts stored before this test (a resume). */
  stored: Array<{ part_number: number; etag: string; size: number }>;
  /** Answer a part's PUT: by default 200 with an ETag of its number. */
  answerPut: (part: number) => Response | Promise<Response>;
  /** Hold complete until released, to see the progress just before it. */
  completeGate: Promise<void>;
}

function fakeStore(): FakeStore {
  const store: FakeStore = {
    calls: [],
    puts: [],
    completedWith: null,
    canceled: [],
    stored: [],
    answerPut: (part) => new Response(null, { status: 200, headers: { ETag: `"etag-${part}"` } }),
    completeGate: Promise.resolve(),
  };
  fetchMock.mockImplementation(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const method = init?.method ?? "GET";
    if (url.pathname.startsWith("/store/")) {
      const part = Number(url.searchParams.get("part"));
      store.puts.push(part);
      return store.answerPut(part);
    }
    const path = url.pathname.replace("/api/v2", "");
    store.calls.push(`${method} ${path}`);
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    if (path === `${UPLOAD_PATH}/begin`) return jsonResponse(200, { upload_id: "up-1" });
    if (path === `${UPLOAD_PATH}/upload_url`) {
      const id = url.searchParams.get("upload_id");
      return jsonResponse(200, { url: `http://localhost/store/${id}?part=${url.searchParams.get("part_number")}` });
    }
    if (path === `${UPLOAD_PATH}/parts`) return jsonResponse(200, { parts: store.stored });
    if (path === `${UPLOAD_PATH}/complete`) {
      await store.completeGate;
      store.completedWith = body;
      return jsonResponse(200, {});
    }
    if (path === `${UPLOAD_PATH}/cancel`) {
      store.canceled.push(body.upload_id);
      return jsonResponse(200, {});
    }
    return jsonResponse(404, {});
  });
  return store;
}

/** A file of this many bytes (its content does not matter to the protocol). */
const fileOf = (bytes: number, name = "melt.pdb") => new File([new Uint8Array(bytes)], name);

function startActor() {
  const actor = createActor(uploadMachine, { input: { target: uploadTargetAt(UPLOAD_PATH), retryDelays: [] } });
  const shown: number[] = [];
  actor.subscribe((snapshot) => shown.push(shownProgress(snapshot.value as UploadMachineState, snapshot.context)));
  actor.start();
  return { actor, shown };
}

/** A store whose PUTs are never answered (the upload stays mid-flight); `putSeen` resolves at the first. */
function storeHangingOnPut() {
  const store = fakeStore();
  let firstPut = () => {};
  const putSeen = new Promise<void>((resolve) => {
    firstPut = resolve;
  });
  store.answerPut = () => {
    firstPut();
    return new Promise<Response>(() => {});
  };
  return { store, putSeen };
}

const settled = (actor: ReturnType<typeof startActor>["actor"]) =>
  waitFor(actor, (s) => ["completed", "error", "canceled"].includes(s.value as string));

describe("upload machine", () => {
  signedInWithFetch(fetchMock);
  beforeEach(() => vi.stubGlobal("XMLHttpRequest", FakePartRequest));

  it("counts the bytes sent, not the parts finished: a file of one part moves before its part ends", async () => {
    const { putSeen } = storeHangingOnPut();
    const { actor, shown } = startActor();
    actor.send({ type: "START", file: fileOf(MB) });
    await putSeen;
    // Half the only part has left: half the bar, though no part has finished.
    await vi.waitFor(() => expect(shown.at(-1)).toBe(50));
    expect(actor.getSnapshot().value).toBe("uploading");
  });

  it("sends a file in 5 MB parts and completes with each part's ETag, never showing 100 before complete", async () => {
    const store = fakeStore();
    let release = () => {};
    store.completeGate = new Promise((resolve) => {
      release = resolve;
    });
    const { actor, shown } = startActor();
    actor.send({ type: "START", file: fileOf(2 * UPLOAD_PART_SIZE + MB) });
    expect(actor.getSnapshot().value).toBe("uploading");

    await vi.waitFor(() => expect(store.calls).toContain(`POST ${UPLOAD_PATH}/complete`));
    // Every byte is sent, complete has not answered: the bar waits at 99.
    expect(shownProgress("uploading", actor.getSnapshot().context)).toBe(99);
    release();
    const final = await settled(actor);

    expect(final.value).toBe("completed");
    expect(shownProgress("completed", final.context)).toBe(100);
    expect(shown.slice(0, -1).every((p) => p <= 99)).toBe(true);
    expect([...store.puts].sort()).toEqual([1, 2, 3]);
    expect(store.completedWith).toEqual({
      upload_id: "up-1",
      parts: [
        { etag: '"etag-1"', part_number: 1 },
        { etag: '"etag-2"', part_number: 2 },
        { etag: '"etag-3"', part_number: 3 },
      ],
    });
    expect(final.context.uploadId).toBe("up-1");
    expect(store.canceled).toEqual([]);
  });

  it("fails on a part answered without an ETag, cancels the upload on the server, and retries from the start", async () => {
    const store = fakeStore();
    store.answerPut = (part) =>
      new Response(null, { status: 200, headers: part === 2 ? {} : { ETag: `"etag-${part}"` } });
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(2 * UPLOAD_PART_SIZE) });
    const failed = await settled(actor);

    expect(failed.value).toBe("error");
    expect(failed.context.error).toBe(UPLOAD_FAILED_MESSAGE);
    await vi.waitFor(() => expect(store.canceled).toEqual(["up-1"]));
    expect(store.calls).not.toContain(`POST ${UPLOAD_PATH}/complete`);

    store.answerPut = (part) => new Response(null, { status: 200, headers: { ETag: `"etag-${part}"` } });
    actor.send({ type: "RETRY" });
    expect((await settled(actor)).value).toBe("completed");
    expect(store.calls.filter((c) => c === `POST ${UPLOAD_PATH}/begin`)).toHaveLength(2);
  });

  it("sends another file after a completed one", async () => {
    const store = fakeStore();
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(MB, "first.pdb") });
    expect((await settled(actor)).value).toBe("completed");
    actor.send({ type: "START", file: fileOf(2 * MB, "second.pdb") });
    expect(actor.getSnapshot().value).toBe("uploading");
    const final = await settled(actor);
    expect(final.value).toBe("completed");
    expect(final.context.file?.name).toBe("second.pdb");
    expect(store.calls.filter((c) => c === `POST ${UPLOAD_PATH}/begin`)).toHaveLength(2);
  });

  it("fails when a part is refused", async () => {
    const store = fakeStore();
    store.answerPut = () => new Response("<Error>SignatureDoesNotMatch</Error>", { status: 403 });
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(MB) });
    expect((await settled(actor)).value).toBe("error");
    await vi.waitFor(() => expect(store.canceled).toEqual(["up-1"]));
  });

  it("cancels on the user's Cancel: the parts stop and the server aborts the upload", async () => {
    const { store, putSeen } = storeHangingOnPut();
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(3 * UPLOAD_PART_SIZE) });
    await putSeen;
    actor.send({ type: "CANCEL" });
    expect(actor.getSnapshot().value).toBe("canceled");
    await vi.waitFor(() => expect(store.canceled).toEqual(["up-1"]));
    expect(store.calls).not.toContain(`POST ${UPLOAD_PATH}/complete`);
  });

  it("keeps the stored parts when the page is left mid-upload (no cancel on the server)", async () => {
    const { store, putSeen } = storeHangingOnPut();
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(2 * UPLOAD_PART_SIZE) });
    await putSeen;
    actor.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.canceled).toEqual([]);
  });

  it("resumes an upload from the parts already stored: ListParts, then only the missing parts", async () => {
    const store = fakeStore();
    store.stored = [
      { part_number: 1, etag: '"stored-1"', size: UPLOAD_PART_SIZE },
      { part_number: 2, etag: '"stored-2"', size: UPLOAD_PART_SIZE },
    ];
    const { actor } = startActor();
    actor.send({ type: "START", file: fileOf(3 * UPLOAD_PART_SIZE + 10), resumeUploadId: "up-0" });
    const final = await settled(actor);

    expect(final.value).toBe("completed");
    expect(store.calls).not.toContain(`POST ${UPLOAD_PATH}/begin`);
    expect(store.calls).toContain(`GET ${UPLOAD_PATH}/parts`);
    expect(store.puts.sort()).toEqual([3, 4]);
    expect(store.completedWith).toEqual({
      upload_id: "up-0",
      parts: [
        { etag: '"stored-1"', part_number: 1 },
        { etag: '"stored-2"', part_number: 2 },
        { etag: '"etag-3"', part_number: 3 },
        { etag: '"etag-4"', part_number: 4 },
      ],
    });
  });
});
