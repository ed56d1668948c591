import { describe, expect, it } from "vitest";
import { QueueError } from "./errors.js";
import { parseQueueUrl, redactUrls } from "./url.js";

function failure(raw: string): QueueError {
  try {
    parseQueueUrl(raw);
  } catch (e) {
    if (e instanceof QueueError) return e;
    throw e;
  }
  throw new Error(`${raw} was accepted`);
}

describe("parseQueueUrl", () => {
  it("reads host, port, database, ACL user and password, and TLS", () => {
    const c = parseQueueUrl("rediss://ci%40lab:p%40ss%2Fword@queue.example:6380/3");
    expect(c.redis).toMatchObject({
      host: "queue.example",
      port: 6380,
      db: 3,
      username: "ci@lab",
      password: "p@ss/word",
      tls: { servername: "queue.example" },
    });
    expect(c.display).toBe("rediss://ci%40lab:***@queue.example:6380/3");
    expect(c.secrets).toContain("p@ss/word");
    expect(c.secrets).toContain("p%40ss%2Fword");
  });

  it("sends no server name over TLS to an address (SNI names hosts only), and still speaks TLS", () => {
    expect(parseQueueUrl("rediss://10.0.0.5:6380/0").redis.tls).toEqual({});
    expect(parseQueueUrl("rediss://[::1]:6380/0").redis.tls).toEqual({});
    expect(parseQueueUrl("rediss://localhost:6380/0").redis.tls).toEqual({ servername: "localhost" });
  });

  it("defaults to port 6379 and database 0, without TLS or credentials", () => {
    const c = parseQueueUrl("redis://127.0.0.1");
    expect(c.redis).toEqual({ host: "127.0.0.1", port: 6379, db: 0 });
    expect(c.display).toBe("redis://127.0.0.1/0");
    expect(c.secrets).toEqual([]);
    expect(parseQueueUrl("redis://[::1]:7000/1").redis).toMatchObject({ host: "::1", port: 7000, db: 1 });
  });

  it("refuses what is not a queue URL, in one sentence that never shows the password", () => {
    for (const [raw, why] of [
      ["queue.example:6379", /scheme|parse/],
      ["http://queue.example:6379/0", /scheme is http/],
      ["redis://:hunter2@queue.example:6379/zero", /not a database number/],
      ["redis://u:hunter2@queue.example:6379/0?tls=1", /query/],
      ["redis://u:hunter2@queue.example:99999/0", /parse|port/],
      ["redis://u:hunter2@/0", /parse|host/],
    ] as const) {
      const e = failure(raw);
      expect(e.code).toBe("QUEUE_BAD_URL");
      expect(e.kind).toBe("user");
      expect(e.runtime).toBe(false);
      expect(e.message).toMatch(why);
      expect(e.message).not.toContain("hunter2");
      expect(e.message.split("\n")).toHaveLength(1);
    }
  });
});

describe("redactUrls", () => {
  it("hides the password of every redis URL and every given secret", () => {
    expect(redactUrls("a redis://u:s3cret@h:1/0 and rediss://:t0ken@h2/1, secret s3cret")).toBe(
      "a redis://u:***@h:1/0 and rediss://:***@h2/1, secret s3cret",
    );
    expect(redactUrls("secret s3cret", ["s3cret"])).toBe("secret ***");
    expect(redactUrls("redis://h:6379/0 has no password")).toBe("redis://h:6379/0 has no password");
  });
});
