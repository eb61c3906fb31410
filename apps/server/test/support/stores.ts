import { afterAll, beforeAll } from "vitest";
import { type DatabaseKind, databaseKinds } from "./database";
import { type S3TestServer, startS3Server } from "./s3-server";

/** The file stores the upload suites run on (kept apart from s3-server.ts, which benchmarks load
 * outside vitest). */
export type StoreKind = "local" | "s3";

/** Every database with both file stores (the embedded one and S3), for `describe.each`. */
export function databaseAndStoreKinds(): Array<[DatabaseKind, StoreKind]> {
  return databaseKinds().flatMap((db) =>
    (["local", "s3"] as const).map((store): [DatabaseKind, StoreKind] => [db, store]),
  );
}

/** One S3 server for the suites of this file: started before them, stopped after. Call at the top
 * level of the file; the answer gives the running server. */
export function useS3Server(): () => S3TestServer {
  let server: S3TestServer | undefined;
  beforeAll(async () => {
    server = await startS3Server();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error("the S3 test server is not running");
    return server;
  };
}
