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

  it("keeps a slash (no caller takes it out; the browser does)", () => {
    expect(attachmentDisposition("dir/water.pdb", USER_NAMES)).toBe('attachment; filename="dir/water.pdb"');
    expect(attachmentDisposition("dir/result.csv", RESULTS)).toBe('attachment; filename="dir/result.csv"');
  });

  it("sends a name outside printable ASCII as an ASCII fallback and filename*=UTF-8''", () => {
    expect(attachmentDisposition("éthanol.pdb", USER_NAMES)).toBe(
      "attachment; filename=\"_thanol.pdb\"; filename*=UTF-8''%C3%A9thanol.pdb",
    );
    expect(attachmentDisposition("水.top", USER_NAMES)).toBe(
      "attachment; filename=\"_.top\"; filename*=UTF-8''%E6%B0%B4.top",
    );
    // One '_' per character, not per UTF-16 unit; RFC 8187's attr-char as they are, the rest %XX.
    expect(attachmentDisposition("🧪 a'(b)*%;=,.pdb", USER_NAMES)).toBe(
      "attachment; filename=\"_ a'(b)*%;=,.pdb\"; filename*=UTF-8''%F0%9F%A7%AA%20a%27%28b%29%2A%25%3B%3D%2C.pdb",
    );
    // A lone surrogate (JSON can carry one) is U+FFFD in filename*, never a thrown URIError.
    expect(attachmentDisposition("a\ud800.pdb", USER_NAMES)).toBe(
      "attachment; filename=\"a_.pdb\"; filename*=UTF-8''a%EF%BF%BD.pdb",
    );
  });
});

/** The name `filename*=UTF-8''…` carries, decoded (undefined without one). */
function extendedName(disposition: string): string | undefined {
  const match = /; filename\*=UTF-8''([^;\s]+)$/.exec(disposition);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/** The name in `filename="…"`. */
function fallbackName(disposition: string): string | undefined {
  return /^attachment; filename="([^"]*)"/.exec(disposition)?.[1];
}

describe("sendDownload with names users give", () => {
  /** The name, what the users' cleaning leaves of it, and the fallback. */
  const names: Array<[string, string, string]> = [
    ["éthanol.pdb", "éthanol.pdb", "_thanol.pdb"],
    ["水.top", "水.top", "_.top"],
    ["water 💧 box.gro", "water 💧 box.gro", "water _ box.gro"],
    ['my "best" 水.pdb', "my best 水.pdb", "my best _.pdb"],
    ["a\\b é.top", "ab é.top", "ab _.top"],
    ["line\r\nbreak ü.pdb", "linebreak ü.pdb", "linebreak _.pdb"],
    ["tab\there.pdb", "tab\there.pdb", "tab_here.pdb"],
    ["plain-name_1.pdb", "plain-name_1.pdb", "plain-name_1.pdb"],
  ];

  it.each(names)("answers 200 with an ASCII header for %j", async (fileName, cleaned, fallback) => {
    const app = Fastify();
    app.get("/file", (_request, reply) =>
      sendDownload(
        reply,
        { fileName, size: 5, stream: Readable.from([Buffer.from("hello")]) },
        { contentType: "text/plain", strip: USER_NAMES },
      ),
    );
    try {
      const res = await app.inject({ method: "GET", url: "/file" });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe("hello");
      const disposition = res.headers["content-disposition"] as string;
      expect(disposition).toMatch(/^[\x20-\x7e]+$/);
      expect(fallbackName(disposition)).toBe(fallback);
      expect(extendedName(disposition) ?? fallbackName(disposition)).toBe(cleaned);
      expect(extendedName(disposition) === undefined).toBe(fallback === cleaned);
    } finally {
      await app.close();
    }
  });

  it("answers a results name beyond U+00FF over a real socket, whole", async () => {
    // Over a socket, as a browser gets it (Node refused such a name in the header: a 500).
    const app = Fastify();
    app.get("/file", (_request, reply) =>
      sendDownload(
        reply,
        { fileName: "水_files.zip", size: 2, stream: Readable.from([Buffer.from("PK")]) },
        { contentType: "application/zip", strip: RESULTS },
      ),
    );
    try {
      const address = await app.listen({ port: 0, host: "127.0.0.1" });
      const res = await fetch(`${address}/file`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("PK");
      const disposition = res.headers.get("content-disposition")!;
      expect(disposition).toBe("attachment; filename=\"__files.zip\"; filename*=UTF-8''%E6%B0%B4_files.zip");
      expect(extendedName(disposition)).toBe("水_files.zip");
    } finally {
      await app.close();
    }
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
