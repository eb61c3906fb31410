import { shownUploadProgress, UPLOAD_FAILED_MESSAGE } from "@polyforge/contracts/uploads";
import { assign, fromCallback, sendTo, setup } from "xstate";
import { type MultipartUploadHandle, startMultipartUpload } from "./multipartUpload";
import type { UploadTarget } from "./uploadTarget";

export interface UploadMachineInput {
  target: UploadTarget;
  /** Waits before a failed part is tried again (Uppy's retryDelays); tests pass []. */
  retryDelays?: number[];
}

export interface UploadMachineContext extends UploadMachineInput {
  file: File | null;
  /** Set when the file continues an upload begun earlier (same name and size, stored parts). */
  resumeUploadId: string | null;
  uploadId: string | null;
  uploadedBytes: number;
  totalBytes: number;
  error: string | null;
}

export type UploadMachineEvent =
  | { type: "START"; file: File; resumeUploadId?: string | null }
  | { type: "CANCEL" }
  | { type: "RETRY" }
  | { type: "RESET" }
  | { type: "UPLOAD_ID"; uploadId: string }
  | { type: "PROGRESS"; uploadedBytes: number; totalBytes: number }
  | { type: "DONE" }
  | { type: "FAILED"; reason: string }
  | { type: "CANCELED" };

interface UploaderInput {
  file: File;
  target: UploadTarget;
  resumeUploadId: string | null;
  retryDelays?: number[];
}

/** Runs one upload and reports back; on CANCEL it aborts on the server, on stop it only detaches
 * (the stored parts stay for a resume when the page is left mid-upload). */
const uploadFile = fromCallback<{ type: "CANCEL" }, UploaderInput>(({ input, sendBack, receive }) => {
  const handle: MultipartUploadHandle = startMultipartUpload({
    file: input.file,
    target: input.target,
    resumeUploadId: input.resumeUploadId ?? undefined,
    retryDelays: input.retryDelays,
    onUploadId: (uploadId) => sendBack({ type: "UPLOAD_ID", uploadId }),
    onProgress: (uploadedBytes, totalBytes) => sendBack({ type: "PROGRESS", uploadedBytes, totalBytes }),
    onComplete: () => sendBack({ type: "DONE" }),
    onError: (error) => sendBack({ type: "FAILED", reason: error.message }),
  });
  let canceled = false;
  receive((event) => {
    if (event.type !== "CANCEL" || canceled) return;
    canceled = true;
    handle.cancel();
    sendBack({ type: "CANCELED" });
  });
  return () => {
    if (!canceled) handle.detach();
  };
});

const fresh = { uploadId: null, uploadedBytes: 0, totalBytes: 0, error: null } as const;

/**
 * SPEC §4 upload machine: idle → uploading → completed, or error (a failed part, a missing ETag, a
 * refused call: retry or choose another file) or canceled ('Upload canceled').
 */
export const uploadMachine = setup({
  types: {
    context: {} as UploadMachineContext,
    events: {} as UploadMachineEvent,
    input: {} as UploadMachineInput,
  },
  actors: { uploadFile },
  actions: {
    select: assign(({ event }) => {
      if (event.type !== "START") return {};
      return { ...fresh, file: event.file, resumeUploadId: event.resumeUploadId ?? null, totalBytes: event.file.size };
    }),
    // A retry starts over: the failed or canceled upload was aborted on the server.
    restart: assign(({ context }) => ({ ...fresh, resumeUploadId: null, totalBytes: context.file?.size ?? 0 })),
  },
}).createMachine({
  id: "upload",
  initial: "idle",
  context: ({ input }) => ({ ...input, ...fresh, file: null, resumeUploadId: null }),
  states: {
    idle: {
      on: { START: { target: "uploading", actions: "select" } },
    },
    uploading: {
      invoke: {
        id: "uploader",
        src: "uploadFile",
        input: ({ context }) => ({
          // START always sets the file before this state is entered.
          file: context.file as File,
          target: context.target,
          resumeUploadId: context.resumeUploadId,
          retryDelays: context.retryDelays,
        }),
      },
      on: {
        UPLOAD_ID: { actions: assign({ uploadId: ({ event }) => event.uploadId }) },
        PROGRESS: {
          actions: assign({
            uploadedBytes: ({ event }) => event.uploadedBytes,
            totalBytes: ({ event }) => event.totalBytes,
          }),
        },
        DONE: { target: "completed", actions: assign({ uploadedBytes: ({ context }) => context.totalBytes }) },
        FAILED: { target: "error", actions: assign({ error: UPLOAD_FAILED_MESSAGE }) },
        CANCEL: { actions: sendTo("uploader", { type: "CANCEL" }) },
        CANCELED: { target: "canceled" },
      },
    },
    completed: {
      on: {
        // Another file after a completed one (the server found the first invalid).
        START: { target: "uploading", actions: "select" },
        RESET: { target: "idle", actions: assign({ ...fresh, file: null, resumeUploadId: null }) },
      },
    },
    error: {
      on: {
        RETRY: { target: "uploading", actions: "restart" },
        START: { target: "uploading", actions: "select" },
        RESET: { target: "idle", actions: assign({ ...fresh, file: null, resumeUploadId: null }) },
      },
    },
    canceled: {
      on: {
        RETRY: { target: "uploading", actions: "restart" },
        START: { target: "uploading", actions: "select" },
        RESET: { target: "idle", actions: assign({ ...fresh, file: null, resumeUploadId: null }) },
      },
    },
  },
});

export type UploadMachineState = "idle" | "uploading" | "completed" | "error" | "canceled";

/** Whole percent as shown: capped at 99 until the machine reaches completed (SPEC §9). */
export function shownProgress(state: UploadMachineState, context: UploadMachineContext): number {
  return shownUploadProgress(context.uploadedBytes, context.totalBytes, state === "completed");
}
