import { Readable } from "node:stream";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { attachmentDisposition, contentTypeByExtension, sendDownload } from "../src/platform/downloads";

/** What each download route takes out of a name (its own routes.ts states it). */
const RESULTS = /"/g; // system-executions: the engine's names and '{sanitized_name}_files.zip'
const USER_NAMES = /["\\\r\n]/g; // molecular-systems and potentials: a user's uploaded file name

describe("attachmentDisposition", () => {
  it("quotes a plain name as it is", () => {
    expect(attachmentDisposition("tiny_pe_melt_files.zip", RESULTS)).toBe(
      'attachment; filename="tiny_pe_melt_files.zip"',
    );
    expect(attachmentDisposition("waters.pdb", USER_NAMES)).toBe('attachment; filename="waters.pdb"');
  });

  it("takes quotes out for every caller", () => {
    expect(attachmentDisposition('my "best" run.zip', RESULTS)).toBe('attachment; filename="my best run.zip"');
    expect(attachmentDisposition('my "best" water.pdb', USER_NAMES)).toBe('attachment; filename="my best water.pdb"');
  });

  it("takes backslashes and line breaks out of users' names; results keep them (their names have none)", () => {
    expect(attachmentDisposition("a\\b\r\nc.top", USER_NAMES)).toBe('attachment; filename="abc.top"');
    expect(attachmentDisposition("a\\b.zip", RESULTS)).toBe('attachment; filename="a\\b.zip"');
  });

  it("keeps a slash (no caller takes it out; the browser does) and leaves non-ASCII unencoded", () => {
    expect(attachmentDisposition("dir/water.pdb", USER_NAMES)).toBe('attachment; filename="dir/water.pdb"');
    expect(attachmentDisposition("dir/result.csv", RESULTS)).toBe('attachment; filename="dir/result.csv"');
    // As before: no filename*= form. Node sends U+0080..U+00FF as single bytes and refuses anything
    // beyond U+00FF in a header when the reply is written.
    expect(attachmentDisposition("éthanol.pdb", USER_NAMES)).toBe('attachment; filename="éthanol.pdb"');
    expect(attachmentDisposition("水.top", USER_NAMES)).toBe('attachment; filename="水.top"');
  });
});

describe("contentTypeByExtension", () => {
  const types = { ".zip": "application/zip", ".pdb": "chemical/x-pdb" };

  it("reads the last extension, in any case, else the fallback", () => {
    expect(contentTypeByExtension("a.tar.ZIP", types, "text/plain")).toBe("application/zip");
    expect(contentTypeByExtension("water.pdb", types, "text/plain")).toBe("chemical/x-pdb");
    expect(contentTypeByExtension("energies.csv", types, "text/plain")).toBe("text/plain");
    expect(contentTypeByExtension("no-extension", types, "application/octet-stream")).toBe("application/octet-stream");
  });
});

describe("sendDownload", () => {
  it("streams the file with its type, length and attachment name", async () => {
    const app = Fastify();
    app.get("/file", (_request, reply) =>
      sendDownload(
        reply,
        { fileName: 'say "hi".top', size: 5, stream: Readable.from([Buffer.from("he"), Buffer.from("llo")]) },
        { contentType: "text/plain", strip: USER_NAMES },
      ),
    );
    try {
      const res = await app.inject({ method: "GET", url: "/file" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("text/plain");
      expect(res.headers["content-length"]).toBe("5");
      expect(res.headers["content-disposition"]).toBe('attachment; filename="say hi.top"');
      expect(res.body).toBe("hello");
    } finally {
      await app.close();
    }
  });
});
