// `node --import ./import-log.mjs`: installs import-log-hooks.mjs.
import { register } from "node:module";

register("./import-log-hooks.mjs", import.meta.url);
