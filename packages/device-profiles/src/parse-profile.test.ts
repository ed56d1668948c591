import { describe, expect, it } from "vitest";
import { getBuiltinProfile } from "./builtin-profiles.js";
import { DeviceProfileError } from "./errors.js";
import { parseDeviceProfile } from "./parse-profile.js";

const good = {
  kind: "nvme",
  name: "my-nvme",
  title: "My NVMe drive",
  basis: "measurement",
  sources: ["fio on my machine"],
  note: "",
  maxIoBytes: 524288,
  readLatencyQd1Us: 80,
  sequentialReadBytesPerSecond: 3.2e9,
  randomReadIops: 500_000,
  randomReadQueueDepth: 64,
};

function errorOf(json: unknown, file = "profiles/my-nvme.json"): DeviceProfileError {
  try {
    parseDeviceProfile(json, file);
  } catch (e) {
    expect(e).toBeInstanceOf(DeviceProfileError);
    return e as DeviceProfileError;
  }
  throw new Error("expected a DeviceProfileError");
}

/** One sentence: a single line that ends with a period, with no second sentence after a ". ". */
function expectOneSentence(message: string): void {
  expect(message).not.toMatch(/\n/);
  expect(message).toMatch(/\.$/);
  expect(message.slice(0, -1)).not.toMatch(/\.\s+[A-Z]/);
}

describe("parseDeviceProfile", () => {
  it("fills in the defaults", () => {
    const p = parseDeviceProfile(good, "x.json");
    expect(p.kind === "nvme" && p.latencyReadBytes).toBe(4096);
    expect(p.kind === "nvme" && p.sequentialReadBlockBytes).toBe(131072);
    expect(p.kind === "nvme" && p.optimalIoBytes).toBe(0);
  });

  it("round-trips every built-in through JSON", () => {
    const p = getBuiltinProfile("raid0-6x-intel-s3600-100gb");
    expect(parseDeviceProfile(JSON.parse(JSON.stringify(p)), "raid.json")).toEqual(p);
  });
});

describe("bad profile files fail with one sentence naming the field and the file", () => {
  it("missing field", () => {
    const { randomReadIops: _, ...missing } = good;
    const e = errorOf(missing);
    expect(e.message).toBe(
      'Device profile profiles/my-nvme.json: field "randomReadIops" is missing (maximum random reads per second of randomReadBlockBytes).',
    );
    expect(e.field).toBe("randomReadIops");
    expect(e.source).toBe("profiles/my-nvme.json");
    expect(e.code).toBe("DEVICE_PROFILE_INVALID");
    expect(e.userError).toBe(true);
    expect(e.name).toBe("DeviceProfileError");
    expectOneSentence(e.message);
  });

  it("negative latency", () => {
    const e = errorOf({ ...good, readLatencyQd1Us: -5 });
    expect(e.message).toBe(
      'Device profile profiles/my-nvme.json: field "readLatencyQd1Us" must be greater than 0 (latency in microseconds of one small read (latencyReadBytes) at queue depth 1), got -5.',
    );
    expectOneSentence(e.message);
  });

  it("a largest read below one 4 KiB page (the page cache reads whole pages)", () => {
    const e = errorOf({ ...good, maxIoBytes: 2048 });
    expect(e.message).toMatch(
      /^Device profile profiles\/my-nvme.json: field "maxIoBytes" must be at least 4096 .*got 2048\.$/,
    );
    expectOneSentence(e.message);
  });

  it("unknown kind", () => {
    const e = errorOf({ ...good, kind: "tape" });
    expect(e.message).toBe(
      'Device profile profiles/my-nvme.json: field "kind" must be one of sata-ssd, nvme, ssd, hdd, raid0, cloud-volume, got "tape".',
    );
    expectOneSentence(e.message);
  });

  it("missing kind", () => {
    const { kind: _, ...noKind } = good;
    expect(errorOf(noKind).message).toMatch(
      /^Device profile profiles\/my-nvme.json: field "kind" is missing/,
    );
  });

  it("wrong unit: milliseconds for a microsecond field", () => {
    const { readLatencyQd1Us: _, ...rest } = good;
    const e = errorOf({ ...rest, readLatencyQd1Ms: 0.08 });
    expect(e.message).toBe(
      'Device profile profiles/my-nvme.json: field "readLatencyQd1Ms" has the wrong unit: the schema takes "readLatencyQd1Us" (latency in microseconds of one small read (latencyReadBytes) at queue depth 1).',
    );
    expect(e.field).toBe("readLatencyQd1Ms");
    expectOneSentence(e.message);
  });

  it("wrong unit: MB/s for a bytes-per-second field", () => {
    const { sequentialReadBytesPerSecond: _, ...rest } = good;
    const e = errorOf({ ...rest, sequentialReadMBps: 3200 });
    expect(e.message).toMatch(
      /field "sequentialReadMBps" has the wrong unit: the schema takes "sequentialReadBytesPerSecond"/,
    );
  });

  it("a field of another kind", () => {
    const e = errorOf({ ...good, rpm: 7200 });
    expect(e.message).toBe(
      'Device profile profiles/my-nvme.json: field "rpm" is not a field of a nvme profile.',
    );
  });

  it("a string where a number belongs", () => {
    const e = errorOf({ ...good, maxIoBytes: "512k" });
    expect(e.message).toMatch(/field "maxIoBytes" must be a number \(largest read .*\), got "512k"\.$/);
  });

  it("no sources", () => {
    expect(errorOf({ ...good, sources: [] }).message).toMatch(/field "sources" must list at least 1 entry/);
  });

  it("a bad RAID member names the nested field", () => {
    const raid = JSON.parse(JSON.stringify(getBuiltinProfile("raid0-6x-intel-s3600-100gb")));
    raid.member.readLatencyQd1Us = -1;
    const e = errorOf(raid, "raid.json");
    expect(e.message).toMatch(
      /^Device profile raid.json: field "member.readLatencyQd1Us" must be greater than 0/,
    );
    raid.member.kind = "floppy";
    expect(errorOf(raid, "raid.json").message).toMatch(
      /field "member.kind" must be one of sata-ssd, nvme, ssd, hdd, got "floppy"/,
    );
  });

  it("a chunk that is not a multiple of 4 KiB", () => {
    const raid = JSON.parse(JSON.stringify(getBuiltinProfile("raid0-6x-intel-s3600-100gb")));
    raid.chunkBytes = 1000;
    expect(errorOf(raid, "raid.json").message).toMatch(/field "chunkBytes" must be a multiple of 4096 bytes/);
  });

  it("not an object at all", () => {
    expect(errorOf([1, 2], "list.json").message).toBe(
      "Device profile list.json: the profile must be a JSON object, got [1,2].",
    );
  });

  it("says (no file) when no file name is given", () => {
    expect(() => parseDeviceProfile({ kind: "tape" })).toThrow(/^Device profile \(no file\): field "kind"/);
  });
});

describe("figures that contradict each other", () => {
  it("an IOPS figure quoted at too shallow a queue depth (Little's law)", () => {
    // 1.2 M IOPS at 50 us needs 60 reads in flight (apps/docs/src/reference/storage-device-models.md#samsung-990-pro), not 32.
    const e = errorOf({
      ...good,
      readLatencyQd1Us: 50,
      sequentialReadBytesPerSecond: 7.45e9,
      randomReadIops: 1.2e6,
      randomReadQueueDepth: 32,
    });
    expect(e.code).toBe("DEVICE_PROFILE_INCONSISTENT");
    expect(e.message).toMatch(
      /field "randomReadQueueDepth" is 32, but by Little's law 1200000 IOPS at 50 us per read needs at least 60 reads in flight\.$/,
    );
  });

  it("an IOPS figure the data path cannot carry", () => {
    const e = errorOf({ ...good, sequentialReadBytesPerSecond: 1e9, randomReadIops: 500_000 });
    expect(e.message).toMatch(
      /field "randomReadIops" .* moves more bytes per second than sequentialReadBytesPerSecond/,
    );
  });

  it("a latency shorter than the read's own transfer", () => {
    const e = errorOf({ ...good, readLatencyQd1Us: 0.5, randomReadIops: 1000 });
    expect(e.message).toMatch(/field "readLatencyQd1Us" is 0.5 us, shorter than moving 4096 bytes/);
  });

  it("a disk whose single-track seek is not shorter than its average seek", () => {
    const hdd = { ...getBuiltinProfile("hdd-7200rpm"), trackToTrackSeekUs: 9000 };
    expect(errorOf(hdd, "disk.json").message).toMatch(
      /^Device profile disk.json: field "trackToTrackSeekUs" \(9000\) must be shorter than averageSeekUs/,
    );
  });
});

describe("error sentences for nested and non-JSON values", () => {
  const gp3 = () => JSON.parse(JSON.stringify(getBuiltinProfile("aws-ebs-gp3-baseline")));

  it("an unknown field inside burst names the object it is in, not 'a undefined profile'", () => {
    const e = errorOf({ ...gp3(), burst: { iopsLimit: 3000, credits: 5 } }, "gp2.json");
    expect(e.message).toBe(
      'Device profile gp2.json: field "burst.credits" is not a field of "burst" in a cloud-volume profile.',
    );
    expect(e.field).toBe("burst.credits");
    expectOneSentence(e.message);
  });

  it("a list where a number or list belongs reads as English ('an array', 'a number')", () => {
    expect(errorOf({ ...good, sources: "fio" }).message).toMatch(/field "sources" must be an array \(/);
    expect(errorOf({ ...good, randomReadIops: [1] }).message).toMatch(
      /field "randomReadIops" must be a number \(/,
    );
  });

  it("shows NaN as NaN (a profile built in code), not as JSON's null", () => {
    const e = errorOf({ ...good, readLatencyQd1Us: Number.NaN });
    expect(e.message).toMatch(/field "readLatencyQd1Us" must be a number .*, got NaN\.$/);
  });
});

describe("strict profiles: bounds, prototype keys, every problem at once", () => {
  const hdd = () => JSON.parse(JSON.stringify(getBuiltinProfile("hdd-7200rpm"))) as Record<string, unknown>;
  const nvme = () =>
    JSON.parse(JSON.stringify(getBuiltinProfile("samsung-990-pro-1tb"))) as Record<string, unknown>;

  it.each<[string, () => Record<string, unknown>, string]>([
    [
      "a latency of 1e300 us",
      () => ({ ...nvme(), readLatencyQd1Us: 1e300 }),
      '"readLatencyQd1Us" must be at most 30000000',
    ],
    ["1e12 IOPS", () => ({ ...nvme(), randomReadIops: 1e12 }), '"randomReadIops" must be at most 1000000000'],
    [
      "a fractional queue depth",
      () => ({ ...nvme(), randomReadQueueDepth: 2.5 }),
      '"randomReadQueueDepth" must be an integer',
    ],
    ["a spindle at 1e6 rpm", () => ({ ...hdd(), rpm: 1e6 }), '"rpm" must be at most 30000'],
    ["a seek of 1e9 us", () => ({ ...hdd(), averageSeekUs: 1e9 }), '"averageSeekUs" must be at most 1000000'],
    ["a number as the name", () => ({ ...nvme(), name: 5 }), '"name" must be a string'],
  ])("refuses %s", (_what, profile, fragment) => {
    expect(() => parseDeviceProfile(profile(), "p.json")).toThrow(fragment);
  });

  it.each(["__proto__", "constructor", "prototype", "extraField"])(
    "refuses the key %s at the top and inside a RAID member",
    (key) => {
      const top = JSON.parse(`{${JSON.stringify(key)}:{"kind":"nvme"},${JSON.stringify(nvme()).slice(1)}`);
      expect(() => parseDeviceProfile(top, "p.json")).toThrow(
        `field "${key}" is not a field of a nvme profile`,
      );
      const raid = JSON.parse(JSON.stringify(getBuiltinProfile("raid0-6x-intel-s3600-100gb")));
      const text = JSON.stringify(raid).replace('"member":{', `"member":{${JSON.stringify(key)}:1,`);
      expect(() => parseDeviceProfile(JSON.parse(text), "r.json")).toThrow(`field "member.${key}"`);
    },
  );

  it("names every bad field in one line", () => {
    const p = { ...hdd(), rpm: -1, averageSeekUs: "fast", extraField: 1, lookAheadBytes: 0.5 };
    let message = "";
    try {
      parseDeviceProfile(p, "p.json");
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^Device profile p\.json: 4 problems: /);
    for (const f of ["rpm", "averageSeekUs", "extraField", "lookAheadBytes"])
      expect(message).toContain(`"${f}"`);
    expect(message).not.toContain("\n");
  });
});
