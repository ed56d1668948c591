/**
 * Reading a profile file: schema validation with errors a person can act on.
 *
 * zod reports every problem it finds, in its own words; a user who wrote a
 * profile by hand needs one sentence that names the file and, for every
 * problem at once, the field, what was expected (with the unit) and what was
 * there. So this file turns each zod issue into such a clause, with two
 * special cases that account for most hand-written mistakes:
 *
 * - an unknown `kind` is reported before anything else (otherwise every field
 *   of the intended kind would look wrong);
 * - a field whose name differs from a schema field only by its unit suffix
 *   (`readLatencyQd1Ms` for `readLatencyQd1Us`, `sequentialReadMBps` for
 *   `sequentialReadBytesPerSecond`) is reported as "wrong unit" and names the
 *   field the schema takes, rather than as an unknown field plus a missing one.
 *
 * After the schema passes, `profile-consistency.ts` checks that the figures fit
 * together (for example that the IOPS figure is reachable at its queue depth by
 * Little's law), with the same kind of one-sentence error.
 */
import * as z from "zod/mini";
import { DeviceProfileError } from "./errors.js";
import { checkProfileConsistency } from "./profile-consistency.js";
import {
  cloudVolumeProfileSchema,
  type DeviceProfile,
  deviceKinds,
  flashKinds,
  flashProfileSchema,
  hddProfileSchema,
  raid0ProfileSchema,
} from "./profile-schema.js";

type ObjectSchema = z.ZodMiniObject<z.core.$ZodLooseShape>;

function schemaForKind(kind: string): ObjectSchema | undefined {
  if ((flashKinds as readonly string[]).includes(kind)) return flashProfileSchema as unknown as ObjectSchema;
  if (kind === "hdd") return hddProfileSchema as unknown as ObjectSchema;
  if (kind === "raid0") return raid0ProfileSchema as unknown as ObjectSchema;
  if (kind === "cloud-volume") return cloudVolumeProfileSchema as unknown as ObjectSchema;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value); // JSON.stringify would say null
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Unit suffixes people write on numeric fields; stripping them gives the field's stem. */
const UNIT_SUFFIX =
  /(BytesPerSecond|BytesPerSec|MBPerSecond|MiBPerSecond|GBPerSecond|KBPerSecond|MBps|MiBps|GBps|Mbps|PerSecond|Seconds|Second|Secs|Sec|Us|Ms|Ns|S|Bytes|Byte|KiB|Kib|KB|Kb|MiB|Mib|MB|Mb|GiB|GB|Gb|Kbytes|Mbytes|Blocks|Pages|Sectors)$/;

function stem(field: string): string {
  return field.replace(UNIT_SUFFIX, "").toLowerCase();
}

/** A check of one object level (top-level profile or a RAID member) before zod runs. */
function checkKind(value: unknown, prefix: string, label: string, allowed: readonly string[]): void {
  const field = `${prefix}kind`;
  if (!isRecord(value)) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_INVALID",
      `Device profile ${label}: ${prefix === "" ? "the profile" : `field "${prefix.slice(0, -1)}"`} must be a JSON object, got ${show(value)}.`,
      { field: prefix === "" ? undefined : prefix.slice(0, -1), source: label },
    );
  }
  const kind = value.kind;
  if (kind === undefined) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_INVALID",
      `Device profile ${label}: field "${field}" is missing (one of ${allowed.join(", ")}).`,
      { field, source: label },
    );
  }
  if (typeof kind !== "string" || !allowed.includes(kind)) {
    throw new DeviceProfileError(
      "DEVICE_PROFILE_INVALID",
      `Device profile ${label}: field "${field}" must be one of ${allowed.join(", ")}, got ${show(kind)}.`,
      { field, source: label },
    );
  }
  if (kind === "raid0") checkKind(value.member, `${prefix}member.`, label, [...flashKinds, "hdd"]);
}

/** The schema object and input object at a path (for descriptions and wrong-unit hints). */
function levelAt(
  input: Record<string, unknown>,
  path: readonly PropertyKey[],
): { schema: ObjectSchema | undefined; value: unknown } {
  let schema = schemaForKind(String(input.kind));
  let value: unknown = input;
  for (const key of path) {
    if (!isRecord(value)) return { schema: undefined, value: undefined };
    value = value[String(key)];
    if (key === "member" && isRecord(value)) schema = schemaForKind(String(value.kind));
    else if (schema !== undefined) {
      const inner = (schema.shape as Record<string, z.ZodMiniType>)[String(key)];
      schema = unwrapObject(inner);
    }
  }
  return { schema, value };
}

function unwrapObject(schema: z.ZodMiniType | undefined): ObjectSchema | undefined {
  let s: unknown = schema;
  for (let i = 0; i < 4 && s !== undefined; i++) {
    const def = (s as { def?: { type?: string; innerType?: unknown } }).def;
    if (def?.type === "object") return s as ObjectSchema;
    s = def?.innerType;
  }
  return undefined;
}

function describe(schema: ObjectSchema | undefined, key: string): string | undefined {
  const field = schema ? (schema.shape as Record<string, z.ZodMiniType>)[key] : undefined;
  return field === undefined ? undefined : z.globalRegistry.get(field)?.description;
}

/** One clause per problem ("field "x" must be ..."), and the field it is about. */
interface Clause {
  field: string | undefined;
  text: string;
}

/**
 * Turns every schema issue into a clause naming the field. A field whose name
 * differs from a schema field only by its unit suffix is reported as "wrong
 * unit" (and the "missing" issue of the field it was meant to be is dropped).
 */
function issueClauses(input: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): Clause[] {
  const clauses: Clause[] = [];
  const meantFields = new Set<string>();
  for (const issue of issues.filter((i) => i.code === "unrecognized_keys")) {
    const { schema, value } = levelAt(input, issue.path);
    const known = schema ? Object.keys(schema.shape) : [];
    for (const key of issue.keys) {
      const field = [...issue.path.map(String), key].join(".");
      const meant = known.find((k) => k !== key && stem(k) === stem(key));
      if (meant !== undefined) {
        const wanted = [...issue.path.map(String), meant].join(".");
        meantFields.add(wanted);
        const help = describe(schema, meant);
        clauses.push({
          field,
          text: `field "${field}" has the wrong unit: the schema takes "${wanted}"${help ? ` (${help})` : ""}`,
        });
        continue;
      }
      // A profile level (top or RAID member) has a kind; a nested object such as `burst` does not.
      const where =
        isRecord(value) && typeof value.kind === "string"
          ? `a ${value.kind} profile`
          : `"${issue.path.map(String).join(".")}" in a ${String(input.kind)} profile`;
      clauses.push({ field, text: `field "${field}" is not a field of ${where}` });
    }
  }
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") continue;
    const field = issue.path.map(String).join(".");
    if (meantFields.has(field)) continue;
    clauses.push({ field, text: `field "${field}" ${problemOf(input, issue)}` });
  }
  return clauses;
}

/** What is wrong with one field, as the end of a sentence. */
function problemOf(input: Record<string, unknown>, issue: z.core.$ZodIssue): string {
  const parentPath = issue.path.slice(0, -1);
  const last = String(issue.path[issue.path.length - 1] ?? "");
  const { schema } = levelAt(input, parentPath);
  const { value } = levelAt(input, issue.path);
  const help = describe(schema, last);
  const about = help ? ` (${help})` : "";
  if (value === undefined && issue.code === "invalid_type") return `is missing${about}`;
  if (issue.code === "invalid_type") {
    const expected = issue.expected === "int" ? "integer" : String(issue.expected);
    return `must be ${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}${about}, got ${show(value)}`;
  }
  if (issue.code === "too_small") {
    const bound = Number(issue.minimum);
    return issue.origin === "array"
      ? `must list at least ${bound} entr${bound === 1 ? "y" : "ies"}${about}`
      : issue.origin === "string"
        ? `must not be empty${about}`
        : `must be ${issue.inclusive ? "at least" : "greater than"} ${bound}${about}, got ${show(value)}`;
  }
  if (issue.code === "too_big") return `must be at most ${String(issue.maximum)}${about}, got ${show(value)}`;
  if (issue.code === "invalid_value") {
    return `must be one of ${issue.values.map((v) => String(v)).join(", ")}, got ${show(value)}`;
  }
  if (issue.code === "invalid_format") {
    return `is not a valid ${last === "name" ? "name" : "value"}${about}, got ${show(value)}`;
  }
  if (issue.code === "not_multiple_of") {
    return `must be a multiple of ${String(issue.divisor)}${about}, got ${show(value)}`;
  }
  return `${issue.message.replace(/\.$/, "")}${about}, got ${show(value)}`;
}

/** At most this many problems are spelled out in one message. */
const CLAUSES_SHOWN = 8;

/** Every schema issue in one sentence naming the file (one clause per problem). */
function issueSentence(
  input: Record<string, unknown>,
  issues: readonly z.core.$ZodIssue[],
  label: string,
): DeviceProfileError {
  const clauses = issueClauses(input, issues);
  const first = clauses[0];
  if (first === undefined) {
    return new DeviceProfileError("DEVICE_PROFILE_INVALID", `Device profile ${label} is not valid.`, {
      source: label,
    });
  }
  if (clauses.length === 1) {
    return new DeviceProfileError("DEVICE_PROFILE_INVALID", `Device profile ${label}: ${first.text}.`, {
      ...(first.field === undefined ? {} : { field: first.field }),
      source: label,
    });
  }
  const shown = clauses
    .slice(0, CLAUSES_SHOWN)
    .map((c) => c.text)
    .join("; ");
  const more = clauses.length > CLAUSES_SHOWN ? `; and ${clauses.length - CLAUSES_SHOWN} more` : "";
  return new DeviceProfileError(
    "DEVICE_PROFILE_INVALID",
    `Device profile ${label}: ${clauses.length} problems: ${shown}${more}.`,
    { ...(first.field === undefined ? {} : { field: first.field }), source: label },
  );
}

/**
 * Parses and checks a device profile (the JSON text already parsed, or an
 * object literal). Defaults are filled in; the figures are checked for
 * consistency (e.g. Little's law between latency, IOPS and queue depth).
 *
 * @param json the profile object
 * @param source the file it came from, named in errors (default "(no file)")
 * @throws DeviceProfileError with one sentence naming the field and the file
 *
 * @example
 * ```ts
 * import { parseDeviceProfile } from "@scanlab/device-profiles";
 * const profile = parseDeviceProfile({
 *   kind: "nvme", name: "my-nvme", title: "My NVMe drive", basis: "measurement",
 *   sources: ["fio on my machine, 2025-01-01"], note: "",
 *   maxIoBytes: 524288, readLatencyQd1Us: 80, sequentialReadBytesPerSecond: 3.2e9,
 *   randomReadIops: 500000, randomReadQueueDepth: 64,
 * }, "my-nvme.json");
 * console.log(profile.latencyReadBytes); // 4096 (default)
 * ```
 */
export function parseDeviceProfile(json: unknown, source?: string): DeviceProfile {
  const label = source ?? "(no file)";
  checkKind(json, "", label, deviceKinds);
  const input = json as Record<string, unknown>;
  const schema = schemaForKind(String(input.kind))!;
  const result = schema.safeParse(input);
  if (!result.success) throw issueSentence(input, result.error.issues, label);
  const profile = result.data as unknown as DeviceProfile;
  checkProfileConsistency(profile, label);
  return profile;
}
