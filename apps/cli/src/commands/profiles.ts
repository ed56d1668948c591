/**
 * `scanlab profiles [list | show NAME|FILE [--out FILE]]`: the built-in device profiles
 * (datasheet figures, with their sources) and what the device model makes of
 * them under three fixed workloads, so profiles of different kinds (flash,
 * disk, RAID0, cloud volume) can be compared on one table.
 */
import { mibPerSFromBytesPerSecond, THROUGHPUT_UNIT } from "@scanlab/core";
import { builtinProfiles, type DeviceProfile, throughputAt } from "@scanlab/device-profiles";
import { readDeviceProfileFile, writeDeviceProfileFile } from "@scanlab/device-profiles/node";
import type { Ctx } from "../context.js";
import { resolveDeviceArg } from "../device-arg.js";
import { CliError, EXIT } from "../errors.js";
import { printJson } from "../json-output.js";
import { fixed, grouped } from "../output/format.js";
import { type Align, renderTable, tableFits } from "../output/table.js";
import { wrap } from "../output/wrap.js";
import { checkOutputFile } from "../output-location.js";

/** What the device model does with a profile under three fixed workloads. */
export interface ModelledFigures {
  /** 8 KiB random reads, one at a time: mean latency in microseconds. */
  random8kQd1LatencyUs: number;
  /** 8 KiB random reads, 32 in flight: reads per second. */
  random8kQd32Iops: number;
  /** 128 KiB sequential reads (Linux's default readahead size), 8 in flight: MiB/s (2^20 bytes per second). */
  sequential128kQd8MibPerS: number;
}

/** Runs the three workloads through the device model. */
export function modelledFigures(p: DeviceProfile): ModelledFigures {
  const q1 = throughputAt(p, { queueDepth: 1, requestBytes: 8192 });
  const q32 = throughputAt(p, { queueDepth: 32, requestBytes: 8192 });
  const seq = throughputAt(p, { queueDepth: 8, requestBytes: 131072, pattern: "sequential" });
  return {
    random8kQd1LatencyUs: q1.meanLatencyUs,
    random8kQd32Iops: q32.iops,
    sequential128kQd8MibPerS: mibPerSFromBytesPerSecond(seq.bytesPerSecond),
  };
}

/** Fields `profiles show` prints outside its table (the heading, Sources, Note), or not at all (measurements). */
const SHOWN_APART = ["name", "title", "kind", "basis", "sources", "note", "measuredWith", "measurements"];

/** A nested profile's fields printed outside the table (its sources and note go under Sources and Note). */
const NESTED_APART = ["sources", "note", "measurements"];

/** The field/value rows of `profiles show`: a nested object (a RAID0 member, a burst bucket) as indented sub-rows. */
function fieldRows(fields: object, apart: readonly string[], indent = ""): string[][] {
  const rows: string[][] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (apart.includes(k) || v === undefined) continue;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      rows.push([indent + k, ""], ...fieldRows(v, NESTED_APART, `${indent}  `));
    } else {
      rows.push([indent + k, Array.isArray(v) ? v.map(String).join(", ") : String(v)]);
    }
  }
  return rows;
}

/** Runs `profiles list` / `profiles show`. */
export async function profilesCommand(
  ctx: Ctx,
  action: string | undefined,
  name: string | undefined,
  flags: { json?: boolean; out?: string },
): Promise<number> {
  const what = action ?? "list";
  if (what === "list") {
    if (name !== undefined)
      throw new CliError("CLI_BAD_USAGE", `"profiles list" takes no name: use "profiles show ${name}".`);
    if (flags.out !== undefined)
      throw new CliError(
        "CLI_BAD_USAGE",
        `"profiles list" writes no file: use "profiles show NAME --out ${flags.out}" to write one profile.`,
      );
    const rows = builtinProfiles().map((p) => ({ profile: p, modelled: modelledFigures(p) }));
    if (ctx.json) {
      printJson(ctx, "profiles list", {
        profiles: rows.map((r) => ({
          name: r.profile.name,
          kind: r.profile.kind,
          title: r.profile.title,
          basis: r.profile.basis,
          modelled: r.modelled,
        })),
      });
      return EXIT.ok;
    }
    const head = [
      "name",
      "kind",
      "basis",
      "8k random QD1 us",
      "8k random QD32 IOPS",
      `128k seq QD8 ${THROUGHPUT_UNIT}`,
      "title",
    ];
    const align: Align[] = ["left", "left", "left", "right", "right", "right", "left"];
    const body = rows.map(({ profile: p, modelled: m }) => [
      p.name,
      p.kind,
      p.basis,
      fixed(m.random8kQd1LatencyUs, 0),
      grouped(m.random8kQd32Iops),
      fixed(m.sequential128kQd8MibPerS, 0),
      p.title,
    ]);
    // On a narrow terminal the title goes first, then the basis: a row a line, names whole.
    let keep = head.map((_, i) => i);
    const pick = <T>(r: T[]) => keep.map((i) => r[i]!);
    for (const drop of [6, 2]) {
      if (tableFits(ctx, pick(head), body.map(pick), pick(align))) break;
      keep = keep.filter((i) => i !== drop);
    }
    ctx.out(renderTable(ctx, pick(head), body.map(pick), pick(align)));
    const omitted = head.filter((_, i) => !keep.includes(i));
    ctx.out(
      ctx.c.dim(
        wrap(
          ctx,
          `Figures are what the device model gives for these workloads; \`scanlab profiles show NAME\` gives ${omitted.length > 0 ? `the ${omitted.join(" and ")} (left out at this width) and ` : ""}the datasheet sources.`,
          2,
        ),
      ),
    );
    return EXIT.ok;
  }
  if (what !== "show") {
    throw new CliError(
      "CLI_BAD_USAGE",
      `"profiles ${what}" is not a profiles action: use "profiles list" or "profiles show NAME".`,
    );
  }
  if (name === undefined)
    throw new CliError(
      "CLI_BAD_USAGE",
      `"profiles show" needs a profile name or file: e.g. profiles show intel-ssd-320-120gb.`,
    );
  const { profile, file } = resolveDeviceArg(name, "profiles show");
  const out = flags.out === undefined ? null : checkOutputFile(flags.out, "--out");
  const m = modelledFigures(profile);
  if (out !== null) {
    writeDeviceProfileFile(out, profile);
    readDeviceProfileFile(out); // what --device FILE will do: fail here, not later
  }
  if (ctx.json) {
    printJson(ctx, "profiles show", { profile, file, modelled: m });
    return EXIT.ok;
  }
  const { c } = ctx;
  ctx.out(
    wrap(
      ctx,
      c.bold(`${profile.name}: ${profile.title}`) + c.dim(file ? ` (from ${file})` : " (built-in)"),
      2,
    ),
  );
  ctx.out(
    wrap(
      ctx,
      `kind ${profile.kind}, basis ${profile.basis}${profile.measuredWith ? `, measured with ${profile.measuredWith}` : ""}`,
      2,
    ),
  );
  ctx.out(renderTable(ctx, ["field", "value"], fieldRows(profile, SHOWN_APART), ["left", "left"]));
  ctx.out(
    wrap(
      ctx,
      `Model: 8k random QD1 ${fixed(m.random8kQd1LatencyUs, 0)} us, 8k random QD32 ${grouped(m.random8kQd32Iops)} IOPS, 128k sequential QD8 ${fixed(m.sequential128kQd8MibPerS, 0)} ${THROUGHPUT_UNIT}.`,
      2,
    ),
  );
  const member = profile.kind === "raid0" ? profile.member : undefined;
  ctx.out(c.bold("Sources"));
  for (const s of profile.sources) ctx.out(wrap(ctx, `  - ${s}`, 4));
  if (profile.note) {
    ctx.out(c.bold("Note"));
    ctx.out(wrap(ctx, `  ${profile.note}`, 2));
  }
  if (member !== undefined) {
    ctx.out(c.bold(`Member ${member.name}: sources`));
    for (const s of member.sources) ctx.out(wrap(ctx, `  - ${s}`, 4));
    if (member.note) {
      ctx.out(c.bold(`Member ${member.name}: note`));
      ctx.out(wrap(ctx, `  ${member.note}`, 2));
    }
  }
  if (profile.basis === "placeholder")
    ctx.out(
      c.yellow(
        wrap(ctx, "This profile is a placeholder: its figures are not from a datasheet or a measurement.", 2),
      ),
    );
  if (out !== null)
    ctx.out(wrap(ctx, `Profile written to ${out}: edit it, then give it as --device ${out}.`, 2));
  return EXIT.ok;
}
