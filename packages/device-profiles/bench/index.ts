/**
 * `npm run bench`: modelled requests per second of each device model, side by
 * side, against the target of 10 M modelled requests per second on one
 * core. Each case submits a precomputed trace (offsets in a Float64Array, time
 * advancing by a fixed step) so the loop measures `submit` alone. Random traces
 * use a seeded generator; the same run always submits the same reads.
 */
import { mulberry32 } from "@scanlab/core";
import { builtinProfiles, createDeviceModel, type DeviceProfile, getBuiltinProfile } from "../src/index.js";

const TARGET = 10_000_000;
const N = 4_000_000;
const REPEATS = 3;

interface Case {
  readonly label: string;
  readonly profile: DeviceProfile;
  readonly bytes: number;
  readonly pattern: "random" | "sequential";
  readonly stepUs: number;
}

function trace(c: Case): Float64Array {
  const offsets = new Float64Array(N);
  const random = mulberry32(7);
  const span = c.profile.kind === "hdd" ? c.profile.capacityBytes : 64 * 1024 ** 3;
  const slots = Math.floor(span / c.bytes);
  for (let i = 0; i < N; i++)
    offsets[i] = c.pattern === "sequential" ? i * c.bytes : Math.floor(random.nextFloat() * slots) * c.bytes;
  return offsets;
}

function run(c: Case, offsets: Float64Array): number {
  let best = 0;
  for (let r = 0; r < REPEATS; r++) {
    const model = createDeviceModel(c.profile);
    let now = 0;
    let sink = 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      sink += model.submit(offsets[i]!, c.bytes, now);
      now += c.stepUs;
    }
    const seconds = (performance.now() - t0) / 1000;
    if (sink < 0) console.log("impossible");
    best = Math.max(best, N / seconds);
  }
  return best;
}

const cases: Case[] = [
  {
    label: "sata-ssd  random 8 KiB",
    profile: getBuiltinProfile("intel-ssd-320-120gb"),
    bytes: 8192,
    pattern: "random",
    stepUs: 20,
  },
  {
    label: "sata-ssd  seq 128 KiB",
    profile: getBuiltinProfile("intel-ssd-320-120gb"),
    bytes: 131072,
    pattern: "sequential",
    stepUs: 400,
  },
  {
    label: "nvme      random 8 KiB",
    profile: getBuiltinProfile("samsung-990-pro-1tb"),
    bytes: 8192,
    pattern: "random",
    stepUs: 1,
  },
  {
    label: "raid0 x6  random 8 KiB",
    profile: getBuiltinProfile("raid0-6x-intel-s3600-100gb"),
    bytes: 8192,
    pattern: "random",
    stepUs: 5,
  },
  {
    label: "raid0 x6  seq 128 KiB",
    profile: getBuiltinProfile("raid0-6x-intel-s3600-100gb"),
    bytes: 131072,
    pattern: "sequential",
    stepUs: 40,
  },
  {
    label: "hdd       random 8 KiB",
    profile: getBuiltinProfile("hdd-7200rpm"),
    bytes: 8192,
    pattern: "random",
    stepUs: 12000,
  },
  {
    label: "hdd       seq 128 KiB",
    profile: getBuiltinProfile("hdd-7200rpm"),
    bytes: 131072,
    pattern: "sequential",
    stepUs: 700,
  },
  {
    label: "cloud     random 8 KiB",
    profile: getBuiltinProfile("aws-ebs-gp3-baseline"),
    bytes: 8192,
    pattern: "random",
    stepUs: 300,
  },
  {
    label: "cloud     seq 8 KiB",
    profile: getBuiltinProfile("aws-ebs-gp3-baseline"),
    bytes: 8192,
    pattern: "sequential",
    stepUs: 60,
  },
];

console.log(`@scanlab/device-profiles bench: ${N.toLocaleString("en")} submits per case, best of ${REPEATS}`);
console.log(
  `built-in profiles: ${builtinProfiles().length}; target ${TARGET / 1e6} M modelled requests/s on one core\n`,
);
console.log("case                      M req/s   x target");
let worst = Number.POSITIVE_INFINITY;
for (const c of cases) {
  const rate = run(c, trace(c));
  worst = Math.min(worst, rate);
  console.log(
    `${c.label.padEnd(24)} ${(rate / 1e6).toFixed(1).padStart(8)}   ${(rate / TARGET).toFixed(2).padStart(7)}`,
  );
}
console.log(
  `\nslowest case: ${(worst / 1e6).toFixed(1)} M req/s = ${(worst / TARGET).toFixed(2)} x the 10 M/s target`,
);
